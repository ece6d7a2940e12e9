/**
 * LEAD (merge): the ONE call site of pack extraction for `svc-dl install --extract` and
 * manifest entries with `"extract": true`. Wire it to the "select" branch's function that
 * extracts a verified pack ZIP into `<dir>/<file name without .zip>/` (cli-contract "Downloads",
 * `--extract`). Until then it only says that nothing was extracted.
 */
import type { ItemKey } from "./types.js";

/** What to extract: the verified ZIP `file` in `dir` (absolute), holding the locked bytes. */
export interface ExtractRequest {
  dir: string;
  file: string;
  item: ItemKey;
  notice: (line: string) => void;
}

/**
 * Extracts a verified pack ZIP that install put into `dir`. Throws what the extractor throws
 * (exit 7 `unsafe_archive`, exit 8 file-system failures).
 */
export async function extractInstalledPack(req: ExtractRequest): Promise<void> {
  req.notice(`${req.file}: extraction is not available in this build; the ZIP is kept as is`);
}
