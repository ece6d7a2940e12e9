/**
 * The types the progress renderers share (cli-contract "Streams and output"); a module of its
 * own so that `progress.ts` and the renderers it loads do not import each other.
 */

import type { GetStatus } from "../documents/parts.js";

/** How a finished file ended (cli-contract "JSON documents": `status`). */
export type FileOutcome = GetStatus;

/**
 * Progress of one file at a time, as the download engine reports it. `advance()` is called per
 * received chunk and must stay cheap; implementations throttle their own output.
 */
export interface FileProgress {
  /**
   * A transfer starts (again): `total` bytes when known, `offset` bytes already on disk
   * (resume), `label` an optional prefix such as `pack 3/12` (for `packs sync`).
   */
  start(info: TransferStart): void;
  /** `bytes` more bytes were written. */
  advance(bytes: number): void;
  /** The file is complete (or was already up to date): prints the one line per finished file. */
  done(info: { name: string; bytes: number; resumedFrom: number; outcome: FileOutcome }): void;
  /** Stops drawing and restores the terminal (cursor shown, bar line cleared). Idempotent. */
  stop(): void;
}

/** What `start()` of a file progress receives (see {@link FileProgress}). */
export interface TransferStart {
  name: string;
  /** Bytes the file will have when complete, when known. */
  total: number | undefined;
  /** Bytes already on disk when this attempt starts (resume). */
  offset: number;
  /** A prefix such as `pack 3/12`. */
  label?: string;
}
