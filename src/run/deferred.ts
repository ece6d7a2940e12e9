import { DeadlineError } from "../errors/interrupted-error.js";
import type { Deadline } from "../pacing/deadline.js";
import { type ItemError, itemError } from "./error.js";

/**
 * The `--max-duration` stop of a multi-item run's item loop (cli-contract "Operating
 * unattended"): once the deadline is reached, or an item stopped at it, no item starts; every
 * item left is reported `deferred`.
 */
export class DeferralGate {
  /** The deadline error that stopped the run; undefined while items may still start. */
  stopped: DeadlineError | undefined;
  readonly #deadline: Deadline | undefined;

  /** `deadline`: the run's window; undefined without `--max-duration` (nothing is deferred). */
  constructor(deadline: Deadline | undefined) {
    this.#deadline = deadline;
  }

  /** True when the next item must not start (the deadline is reached, or the run stopped). */
  defers(): boolean {
    if (this.stopped === undefined && this.#deadline?.reached()) {
      this.stopped = this.#deadline.error();
    }
    return this.stopped !== undefined;
  }

  /**
   * For a throw of the item running: a DeadlineError stops the run and is returned (the item
   * is reported deferred with it); anything else is rethrown as is.
   */
  stop(err: unknown): DeadlineError {
    if (!(err instanceof DeadlineError)) throw err;
    this.stopped = err;
    return err;
  }
}

/** The members of a `deferred` item besides its keys. */
export interface DeferredFields {
  status: "deferred";
  path: null;
  bytes: null;
  sha256: null;
  error: ItemError | null;
}

/**
 * The result members of an item `--max-duration` left for the next run: status `deferred`;
 * `error` is the deadline error when the item was running at the deadline (its partial data is
 * kept), null when it never started.
 */
export function deferredFields(stopped?: DeadlineError): DeferredFields {
  return {
    status: "deferred",
    path: null,
    bytes: null,
    sha256: null,
    error: stopped ? itemError(stopped) : null,
  };
}
