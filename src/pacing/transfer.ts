import type { Deadline } from "./deadline.js";

/** What paces the body transfers of a run: `--limit-rate` and `--max-duration`. */
export interface TransferPacing {
  /** Bytes per second for every download body (`--limit-rate`), or undefined for no limit. */
  rateBytesPerSecond?: number | undefined;
  /** The run's deadline (`--max-duration`): a transfer stops at it (partial data kept). */
  deadline?: Deadline | undefined;
}
