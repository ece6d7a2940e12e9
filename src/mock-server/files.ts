/**
 * File versions served by the CDN: layout (built once per version and
 * cached), strong ETag, file name and SHA-256 of the exact bytes.
 */
import { createHash } from "node:crypto";
import { type Layout, makeLayout, sha256OfLayout } from "./content.js";
import type { FaultState } from "./faults.js";
import { glbSegments } from "./glb.js";
import { type HostileArchiveKind, hostileArchive } from "./hostile-zip.js";
import type { FileSpec } from "./state.js";
import { packZipLayout } from "./zip.js";

const MAX_CACHED = 512;

/**
 * Cache of layouts and hashes keyed by file version. With `faults` given, the
 * `hostileArchive` fault replaces every pack file (or those of `hostileArchiveSlugs`) by that hostile archive (same ETag as the
 * normal version: use a fresh directory per test).
 */
export class FileStore {
  private layouts = new Map<string, Layout>();
  private hashes = new Map<string, Promise<string>>();

  constructor(private readonly faults?: FaultState) {}

  /** Cache key of the bytes served now for `spec` (the file version, or the hostile archive). */
  private key(spec: FileSpec): string {
    const hostile = this.hostile(spec);
    return hostile === undefined ? FileStore.id(spec) : `hostile/${hostile}`;
  }

  /** The hostile archive served instead of this file, if any (`hostileArchive`, `hostileArchiveSlugs`). */
  private hostile(spec: FileSpec): HostileArchiveKind | undefined {
    const faults = this.faults?.faults;
    if (spec.kind !== "pack" || faults?.hostileArchive === undefined) return undefined;
    const only = faults.hostileArchiveSlugs;
    return only === undefined || only.includes(spec.slug) ? faults.hostileArchive : undefined;
  }

  /** Cache key of a file version. */
  static id(spec: FileSpec): string {
    return `${spec.kind}/${spec.slug}/${spec.edition}/v${spec.version}/${spec.size}/${spec.assetCount}`;
  }

  /** Strong ETag (quoted) of a file version: 32 hex chars of SHA-256 over its identity. */
  static etag(spec: FileSpec): string {
    return `"${createHash("sha256").update(FileStore.id(spec)).digest("hex").slice(0, 32)}"`;
  }

  /** File name for Content-Disposition: `slug.zip`, `slug-authoring.zip`, `slug.glb`. */
  static filename(spec: FileSpec): string {
    if (spec.kind === "asset") return `${spec.slug}.glb`;
    return spec.edition === "authoring" ? `${spec.slug}-authoring.zip` : `${spec.slug}.zip`;
  }

  /** MIME type of a file. */
  static contentType(spec: FileSpec): string {
    return spec.kind === "asset" ? "model/gltf-binary" : "application/zip";
  }

  /** Layout of a file version (built on first use: one CRC pass over pack data). */
  layout(spec: FileSpec): Layout {
    const id = this.key(spec);
    const hostile = this.hostile(spec);
    let l = this.layouts.get(id);
    if (l === undefined) {
      l =
        hostile !== undefined
          ? makeLayout([{ kind: "lit", buf: hostileArchive(hostile) }])
          : spec.kind === "pack"
            ? packZipLayout({
                slug: spec.slug,
                edition: spec.edition,
                version: spec.version,
                assetCount: spec.assetCount,
                size: spec.size,
              })
            : makeLayout(glbSegments(spec.slug, `${spec.slug}/v${spec.version}`, spec.size));
      if (this.layouts.size >= MAX_CACHED) {
        const oldest = this.layouts.keys().next().value;
        if (oldest !== undefined) this.layouts.delete(oldest);
      }
      this.layouts.set(id, l);
    }
    return l;
  }

  /** SHA-256 (hex) of the file's bytes, streamed once and cached. */
  sha256(spec: FileSpec): Promise<string> {
    const id = this.key(spec);
    let h = this.hashes.get(id);
    if (h === undefined) {
      h = sha256OfLayout(this.layout(spec));
      this.hashes.set(id, h);
    }
    return h;
  }
}
