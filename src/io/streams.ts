import type { Readable, Writable } from "node:stream";

/**
 * The process streams a command talks to, with their TTY flags.
 * Tests pass buffers with TTY flags off unless a case sets them.
 */
export interface IOStreams {
  /** Data only: JSON documents, tables, file bytes for `-o -`. */
  readonly stdout: Writable;
  /** Everything else: progress, notes, warnings, errors. */
  readonly stderr: Writable;
  readonly stdin: Readable;
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  readonly stdinIsTTY: boolean;
  /** Terminal width in columns for stderr, when known. */
  readonly columns?: number;
  /**
   * True when stderr is the systemd journal (`JOURNAL_STREAM` names its device and inode): the
   * journal stamps each line itself, so plain lines carry no time of their own.
   */
  readonly stderrIsJournal?: boolean;
}

/**
 * True when `journalStream` (the `JOURNAL_STREAM` variable systemd sets: `DEVICE:INODE`) names
 * the file `stderr` is (its `fstat` device and inode), as sd_journal_stream_fd(3) describes.
 */
export function isJournalStream(
  journalStream: string | undefined,
  stderr: { dev: number | bigint; ino: number | bigint } | undefined,
): boolean {
  const m = /^(\d+):(\d+)$/.exec(journalStream ?? "");
  if (!m || !stderr) return false;
  return BigInt(m[1] ?? -1) === BigInt(stderr.dev) && BigInt(m[2] ?? -1) === BigInt(stderr.ino);
}
