/**
 * Hostile pack archives for the `hostileArchive` fault: each is a valid ZIP (so it passes a
 * client's download checks) whose contents a careful extractor must refuse. Each starts with a
 * harmless `readme.txt`, so "nothing was written" can be checked.
 */
import { buildZip, type RawZipEntry } from "./zip-builder.js";

/** The kinds of hostile archive the mock can serve. */
export type HostileArchiveKind =
  | "zip-slip"
  | "absolute"
  | "drive-letter"
  | "backslash"
  | "symlink"
  | "zip-bomb"
  | "lying-size"
  | "reserved-name"
  | "windows-chars"
  | "duplicate"
  | "deep"
  | "long-name"
  | "long-path"
  | "encrypted";

/** Every kind, for tests that loop over them. */
export const HOSTILE_ARCHIVE_KINDS: readonly HostileArchiveKind[] = [
  "zip-slip",
  "absolute",
  "drive-letter",
  "backslash",
  "symlink",
  "zip-bomb",
  "lying-size",
  "reserved-name",
  "windows-chars",
  "duplicate",
  "deep",
  "long-name",
  "long-path",
  "encrypted",
];

const text = (s: string): Buffer => Buffer.from(s, "utf8");

function hostileEntries(kind: HostileArchiveKind): RawZipEntry[] {
  const evil = text("svc-dl-mock: this file must never be written\n");
  switch (kind) {
    case "zip-slip":
      return [{ name: "pack/../../evil.txt", data: evil }];
    case "absolute":
      return [{ name: "/tmp/svc-dl-mock-evil.txt", data: evil }];
    case "drive-letter":
      return [{ name: "C:/evil.txt", data: evil }];
    case "backslash":
      return [{ name: "pack\\..\\..\\evil.txt", data: evil }];
    case "symlink":
      return [
        { name: "pack/link", data: text("/etc"), method: 0, mode: 0o120777 },
        { name: "pack/link/evil.txt", data: evil },
      ];
    case "zip-bomb":
      // 1 MiB of zeros deflates to about 1 KiB, declared as 4 GB.
      return [
        { name: "pack/bomb.bin", data: Buffer.alloc(1024 * 1024), declaredSize: 4_000_000_000 },
      ];
    case "lying-size":
      // declares 100 bytes, inflates to 1 MiB
      return [{ name: "pack/liar.bin", data: Buffer.alloc(1024 * 1024), declaredSize: 100 }];
    case "reserved-name":
      return [{ name: "pack/CON.txt", data: evil }];
    case "windows-chars":
      return [{ name: "pack/what?.txt", data: evil }];
    case "duplicate":
      return [
        { name: "pack/model.glb", data: evil },
        { name: "pack/MODEL.glb", data: evil },
      ];
    case "deep":
      // one path 2,100 levels deep: about 8.5 KB of archive
      return [{ name: `pack/${"a/".repeat(2100)}evil.txt`, data: evil }];
    case "long-name":
      return [{ name: `pack/${"n".repeat(300)}.txt`, data: evil }];
    case "long-path":
      // 12 levels of 100-byte names: every name fits, the whole path (1,200 bytes) does not
      return [{ name: `pack/${`${"p".repeat(99)}/`.repeat(11)}evil.txt`, data: evil }];
    case "encrypted":
      // flagged as encrypted (traditional PKWARE) and stored, without the 12-byte header a
      // real one carries: what yauzl reports as a size mismatch
      return [{ name: "pack/secret.txt", data: evil, method: 0, flags: 0x0001 }];
  }
}

/** The bytes of one hostile archive (deterministic). */
export function hostileArchive(kind: HostileArchiveKind): Buffer {
  return buildZip([
    { name: "readme.txt", data: text("svc-dl-mock hostile archive\n") },
    ...hostileEntries(kind),
  ]);
}
