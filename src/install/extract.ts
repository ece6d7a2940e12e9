import { counted } from "../io/plural.js";
import type { InstallExtracted, ItemKey } from "./types.js";

/** What to extract: the verified ZIP `file` in `dir` (absolute), holding the locked bytes. */
export interface ExtractRequest {
  dir: string;
  file: string;
  /** Lower-case hex SHA-256 of `file` (the lock's): an archive extracted before is skipped. */
  sha256: string;
  item: ItemKey;
  notice: (line: string) => void;
  /** Stops the extraction between entries (the partial folder is removed). */
  signal?: AbortSignal | undefined;
}

/**
 * `install --extract` and manifest entries with `"extract": true` (cli-contract "Downloads",
 * `--extract`): unpacks a verified pack ZIP that install put into `dir` into
 * `<dir>/<file name without .zip>/` with `extractPack` (src/extract/extract.ts), which does
 * nothing when this SHA-256 was extracted into that folder before. Call with `dir`'s lock held.
 * Returns the item's `extracted` member. Throws what the extractor throws (exit 7
 * `unsafe_archive`, exit 8 `file_exists` and other file-system failures, the signal's reason).
 */
export async function extractInstalledPack(req: ExtractRequest): Promise<InstallExtracted> {
  const { extractPack } = await import("../extract/extract.js");
  const done = await extractPack({
    dir: req.dir,
    file: req.file,
    sha256: req.sha256,
    ...(req.signal ? { signal: req.signal } : {}),
  });
  if (done.status === "extracted") {
    req.notice(`extracted ${counted(done.files, "file")} into ${done.path}`);
  }
  return { path: done.path, status: done.status, files: done.files };
}
