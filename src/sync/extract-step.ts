import { basename } from "node:path";
import type { HintContext } from "../errors/codes.js";
import type { SvcError } from "../errors/svc-error.js";
import { counted } from "../io/plural.js";
import { itemError } from "../run/error.js";
import { classifyFailure } from "../run/failure.js";
import type { SyncItemResult } from "./types.js";

/** Statuses whose item has a complete, verified file in DIR. */
const HAS_FILE = new Set(["downloaded", "resumed", "up-to-date", "adopted", "repaired"]);

/**
 * `packs sync --extract` (cli-contract "Downloads", `--extract`): once an item's ZIP is complete
 * in DIR (fetched now, adopted, repaired, or already up to date), unpacks it with `extractPack`
 * (src/extract/extract.ts), which does nothing when the archive's SHA-256 was extracted before.
 * Call with the directory lock held. Returns the item with `extracted: {path, status, files}`,
 * or, for an item-level failure (`unsafe_archive`, `file_exists`), the item as `failed` with
 * that error (its hint rendered for the command `hints` describes). Throws the failures a sync stops on (src/run/failure.ts: other local
 * file-system failures, interruption).
 */
export async function extractSynced(
  dir: string,
  result: SyncItemResult,
  notice: (line: string) => void,
  signal?: AbortSignal,
  hints?: HintContext,
): Promise<SyncItemResult> {
  if (!HAS_FILE.has(result.status) || result.path === null || result.sha256 === null) return result;
  const { extractPack } = await import("../extract/extract.js");
  try {
    const done = await extractPack({
      dir,
      file: basename(result.path),
      sha256: result.sha256,
      ...(signal ? { signal } : {}),
    });
    if (done.status === "extracted") {
      notice(`extracted ${counted(done.files, "file")} into ${done.path}`);
    }
    const extracted: SyncItemResult & { extracted: object } = {
      ...result,
      extracted: { path: done.path, status: done.status, files: done.files },
    };
    return extracted;
  } catch (err) {
    if (classifyFailure(err, result.edition) === "stop") throw err;
    return { ...result, status: "failed", error: itemError(err as SvcError, hints) };
  }
}
