import type { SvcError } from "../errors/svc-error.js";
import type { HttpResponse } from "../http/request-types.js";
import type { FileOutcome, FileProgress } from "../io/progress.js";
import type { OutputDir } from "../outdir/output-dir.js";
import type { ItemRef } from "../outdir/state.js";
import type { DownloadSource } from "./fetch-body.js";

/** Options of `downloadItem` (engine.ts). */
export interface DownloadItemOptions extends ItemRef {
  source: DownloadSource;
  /** The output directory, opened (and locked) by the caller for the run; partial data and state go to its `.svc-dl/`. */
  out: OutputDir;
  /** Exact final file name in the directory (from `-o FILE`); default the server's name. */
  fileName?: string;
  /** Overwrite a destination that is not recorded as ours, and re-download ours unconditionally. */
  force?: boolean;
  /** Re-hash a recorded file even when its size and mtime match the record (`--checksum`). */
  checksum?: boolean;
  /**
   * For a recorded, complete file: true (default) re-validates it with `If-None-Match`; false
   * trusts the state file and returns `up-to-date` without any request (`packs sync`).
   */
  revalidate?: boolean;
  progress: FileProgress;
  /** Prefix for progress lines, e.g. `pack 3/12`. */
  progressLabel?: string;
  /** Builds the error of a non-retryable failure response (legacy denials); default the client's. */
  errorFromResponse?: (res: HttpResponse) => Promise<SvcError>;
  /** Notices (restart, refresh of an expired URL) for stderr. */
  onNotice?: (line: string) => void;
  /** The run's abort signal: the transfer and a re-hash stop at it (InterruptedError). */
  signal?: AbortSignal | undefined;
}

/** What `downloadItem` (engine.ts) did (cli-contract "JSON documents"). */
export interface DownloadResult extends ItemRef {
  /** Absolute path of the final file. */
  path: string;
  /** Base name of the final file in its directory. */
  file: string;
  /** File size in bytes. */
  bytes: number;
  /** Lower-case hex SHA-256 of the file. */
  sha256: string;
  etag: string | null;
  status: FileOutcome;
  /** Bytes that were already on disk from an earlier run when this one resumed; 0 otherwise. */
  resumedFrom: number;
}
