import { closeSync, writeSync } from "node:fs";
import { join } from "node:path";
import { fsError } from "../errors/fs-error.js";
import { createPrivateFile, readRegularFile, removeEntry } from "../io/safe-fs.js";
import { isSafeBaseName } from "./names.js";
import { asStateItem, STATE_DIR, type StateItem } from "./state.js";

/**
 * The state file's journal, `<dir>/.svc-dl/state.log`: while a run holds the directory lock it
 * appends one JSON line per change instead of rewriting `state.json` for every item, so a run of
 * N items writes O(N) bytes, not O(N²) (cli-contract "Untrusted text, paths and caches": Scale).
 * The first line names the generation of the snapshot it extends (`{"generation":"…"}`); each
 * further line is `{"set":<record>}` or `{"drop":"<file name>"}`. At the end of the run the
 * snapshot is rewritten once and the journal removed; after a crash the next run replays it.
 * A journal whose generation is not the snapshot's (an older svc-dl rewrote the snapshot
 * meanwhile) is ignored. Lines are untrusted input: records pass the same checks as the
 * snapshot's, and replay stops at the first line that is not one of these shapes (a torn last
 * write). Appends are not flushed one by one: the ordering that matters for a killed run holds
 * in the page cache; after a power cut a file without its record is adopted when identical.
 */

/** Name of the journal inside `.svc-dl/`. */
export const JOURNAL_FILE = "state.log";

/** One change: a record set (replacing any record of that file name) or a file name dropped. */
export type JournalOp = { set: StateItem } | { drop: string };

/** Path of the journal of `dir`. */
export function journalPathOf(dir: string): string {
  return join(dir, STATE_DIR, JOURNAL_FILE);
}

/**
 * Applies the journal of `dir` to `items` when its generation is `generation`. Returns true when
 * a journal file exists (replayed or not), so the caller rewrites the snapshot and removes it.
 * Never follows a symlink; a journal that cannot be read counts as absent.
 */
export function replayJournal(
  dir: string,
  generation: string | undefined,
  items: Record<string, StateItem>,
): boolean {
  let text: string | undefined;
  try {
    text = readRegularFile(journalPathOf(dir));
  } catch {
    return false;
  }
  if (text === undefined) return false;
  const lines = text.split("\n");
  const head = parseLine(lines[0] ?? "") as { generation?: unknown } | undefined;
  if (generation === undefined || head?.generation !== generation) return true;
  for (const line of lines.slice(1)) {
    const op = asOp(parseLine(line));
    if (!op) break;
    if ("set" in op) items[op.set.file] = op.set;
    else delete items[op.drop];
  }
  return true;
}

function parseLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

function asOp(value: unknown): JournalOp | undefined {
  if (!value || typeof value !== "object") return undefined;
  const v = value as { set?: unknown; drop?: unknown };
  if (v.set !== undefined) {
    const item = asStateItem(v.set);
    return item ? { set: item } : undefined;
  }
  return typeof v.drop === "string" && isSafeBaseName(v.drop) ? { drop: v.drop } : undefined;
}

/** An open journal: appends lines; `close()` is idempotent. */
export class JournalWriter {
  private fd: number | undefined;
  private readonly path: string;

  /**
   * Starts a new journal for the snapshot of `generation` (whatever was at the path, a symlink
   * included, is removed first; the file is created `O_EXCL|O_NOFOLLOW`, 0600). Throws
   * FileSystemError (exit 8).
   */
  constructor(dir: string, generation: string) {
    this.path = journalPathOf(dir);
    removeEntry(this.path);
    try {
      this.fd = createPrivateFile(this.path);
    } catch (err) {
      throw fsError(`cannot create ${this.path}`, err);
    }
    this.write(`${JSON.stringify({ generation })}\n`);
  }

  /** Appends the changes as lines. Throws FileSystemError (exit 8). */
  append(ops: readonly JournalOp[]): void {
    this.write(ops.map((op) => `${JSON.stringify(op)}\n`).join(""));
  }

  /** Closes the journal file (it stays on disk until {@link removeJournal}). */
  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }

  private write(text: string): void {
    if (this.fd === undefined) throw new Error("journal closed");
    const buf = Buffer.from(text, "utf8");
    try {
      let done = 0;
      while (done < buf.length) done += writeSync(this.fd, buf, done, buf.length - done);
    } catch (err) {
      throw fsError(`cannot write ${this.path}`, err);
    }
  }
}

/** Removes the journal of `dir` (the link itself if it is one); never throws. */
export function removeJournal(dir: string): void {
  removeEntry(journalPathOf(dir));
}
