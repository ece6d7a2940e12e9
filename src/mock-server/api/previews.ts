/** Public asset previews `GET|HEAD /previews/{slug}.glb` (no key, no limiter). */
import { rangeChunks } from "../content.js";
import type { ServiceCore } from "../core.js";
import type { RequestContext } from "../http-util.js";
import type { FileSpec } from "../state.js";
import { publishedAsset } from "./respond.js";

/** The preview size in bytes: a small GLB generated from the asset's file spec. */
const PREVIEW_BYTES = 4096;

/** Public preview GLB (no key, no limiter): a small GLB of the asset. */
export function previewFile(core: ServiceCore, ctx: RequestContext, slug: string) {
  const asset = publishedAsset(core, ctx, slug);
  if (asset === undefined) return;
  const spec: FileSpec = {
    ...core.state.assetFile(asset),
    size: PREVIEW_BYTES,
    slug: `${asset.slug}-preview`,
  };
  const layout = core.files.layout(spec);
  const body = Buffer.concat([...rangeChunks(layout, 0, layout.size - 1)]);
  ctx.res.writeHead(200, {
    "Content-Type": "model/gltf-binary",
    "Content-Length": String(body.length),
    "Cache-Control": "public, max-age=3600",
  });
  ctx.res.end(ctx.req.method === "HEAD" ? undefined : body);
}
