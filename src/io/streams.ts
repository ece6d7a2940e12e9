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
}
