/**
 * Fault injection state: the current `Faults` and how many times each
 * counted fault has fired. Replacing the faults resets the counters.
 */
import type { Faults } from "./fault-types.js";

type CountedFault =
  | "dropAfterBytes"
  | "serverError"
  | "rateLimited"
  | "htmlErrorPage"
  | "shortBody"
  | "cdnExpired"
  | "rangeNotSatisfiable"
  | "malformedJson"
  | "flipByte";

/** Holds the faults and their counters. */
export class FaultState {
  private used = new Map<CountedFault, number>();
  /** Counter for `changingEtag`. */
  etagGeneration = 0;

  constructor(public faults: Faults = {}) {}

  /** Replace every fault and reset counters. */
  replace(faults: Faults): void {
    this.faults = { ...faults };
    this.used.clear();
    this.etagGeneration = 0;
  }

  /** True (and counted) when the counted fault `name` still has uses left. */
  take(name: CountedFault): boolean {
    const f = this.faults[name];
    if (f === undefined) return false;
    const n = this.used.get(name) ?? 0;
    if (n >= f.count) return false;
    this.used.set(name, n + 1);
    return true;
  }
}
