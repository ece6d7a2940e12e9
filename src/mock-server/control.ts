/**
 * The control API of a running mock (docs/mock-service.md, "Programmatic use"): state patches
 * (`set()`), key and pack lookups that throw on unknown ids, and `fileInfo()`.
 */
import type { ServiceCore } from "./core.js";
import { FileStore } from "./files.js";
import type { FileInfo, FileRef, StatePatch } from "./service-types.js";
import type { MockState } from "./state.js";

/** The API key with this id or value; throws for an unknown key (the message shows its start only). */
export function mustKey(state: MockState, idOrValue: string) {
  const k = state.key(idOrValue);
  if (k === undefined) throw new Error(`svc-dl-mock: unknown API key ${idOrValue.slice(0, 13)}…`);
  return k;
}

/** The pack `slug`; throws for an unknown pack. */
export function mustPack(state: MockState, slug: string) {
  return must(state.pack(slug), `pack ${slug}`);
}

function must<T>(found: T | undefined, what: string): T {
  if (found === undefined) throw new Error(`svc-dl-mock: unknown ${what}`);
  return found;
}

/** `mock.set(patch)`: applies each field given; throws on an unknown key, account, pack, asset or order. */
export function applyPatch(core: ServiceCore, patch: StatePatch): void {
  const { state, settings } = core;
  if (patch.apiDisabled !== undefined) state.apiDisabled = patch.apiDisabled;
  if (patch.faults !== undefined) core.faults.replace(patch.faults);
  if (patch.ifNoneMatch !== undefined) settings.ifNoneMatch = patch.ifNoneMatch;
  if (patch.signedUrlTtlSeconds !== undefined)
    settings.signedUrlTtlSeconds = patch.signedUrlTtlSeconds;
  if (patch.expiredUrlStatus !== undefined) settings.expiredUrlStatus = patch.expiredUrlStatus;
  if (patch.limits !== undefined) {
    core.limiter.limits = { ...core.limiter.limits, ...patch.limits };
    core.limiter.reset();
  }
  if (patch.packSize !== undefined) state.packSize = patch.packSize;
  if (patch.assetSize !== undefined) state.assetSize = patch.assetSize;
  for (const [id, p] of Object.entries(patch.keys ?? {})) Object.assign(mustKey(state, id), p);
  for (const [id, p] of Object.entries(patch.accounts ?? {})) {
    Object.assign(must(state.account(id), `account ${id}`), p);
  }
  for (const [slug, p] of Object.entries(patch.packs ?? {})) {
    Object.assign(mustPack(state, slug), p);
  }
  for (const [slug, p] of Object.entries(patch.assets ?? {})) {
    Object.assign(must(state.asset(slug), `asset ${slug}`), p);
  }
  for (const [id, p] of Object.entries(patch.orders ?? {})) {
    Object.assign(must(state.order(id), `order ${id}`), p);
  }
}

/** `mock.fileInfo(ref)`: size, ETag, SHA-256 and file name of the bytes the CDN serves now. */
export async function fileInfo(core: ServiceCore, ref: FileRef): Promise<FileInfo> {
  const { state } = core;
  const spec =
    ref.kind === "pack"
      ? state.packFile(mustPack(state, ref.slug), ref.edition ?? "standard")
      : state.assetFile(must(state.asset(ref.slug), `asset ${ref.slug}`));
  const layout = core.files.layout(spec);
  return {
    size: layout.size,
    etag: FileStore.etag(spec),
    sha256: await core.files.sha256(spec),
    filename: FileStore.filename(spec),
    version: spec.version,
  };
}
