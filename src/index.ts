/**
 * svc-dl as a Node library (cli-contract "Library"): `createClient()` gives the CLI's
 * operations to programs, with the same guarantees (resumable, verified, rate-limit aware).
 * Results are the CLI's `--json` documents; failures throw errors carrying `code` (an
 * `ErrorCode`), `exitCode`, `retryable`, `hint` (the next step the CLI prints), `httpStatus` and
 * `requestId`. The library never prints, never exits, and reads
 * `process.env` only when you pass it.
 */
export type { ApiKeyRecord, AssetRecord, Me, Pack } from "./api/schemas.js";
export type { GetJsonDocument } from "./documents/parts.js";
export type {
  VerifyDocument,
  VerifyDocumentItem,
  VerifyStatus,
  VerifySummary,
} from "./documents/runs.js";
export type { ErrorCode, UnlistedApiCode } from "./errors/codes.js";
export { SvcError } from "./errors/svc-error.js";
export { InstallError } from "./install/outcome.js";
export type {
  InstallDocument,
  InstallExtracted,
  InstallItemResult,
  InstallSummary,
  LockFile,
  LockItem,
} from "./install/types.js";
export { defaultCacheDir } from "./library/cache-dir.js";
export { createClient } from "./library/client.js";
export type {
  CallOptions,
  ClientOptions,
  DownloadOptions,
  InstallOptions,
  PacingOptions,
  ProgressCallback,
  ProgressEvent,
  ReportOptions,
  RunOptions,
  SvcDlClient,
  SyncOptions,
  VerifyOptions,
} from "./library/types.js";
export type { SyncDocument, SyncItemResult, SyncSummary } from "./sync/types.js";
