import { NetworkError } from "../errors/network-error.js";
import type { SvcError } from "../errors/svc-error.js";

/**
 * Downloads of one run that may give up on silence from the same CDN origin before the run
 * stops waiting on it (docs/testing.md "A stalled CDN").
 */
export const STALLED_AFTER_ITEMS = 2;

/**
 * A run's memory of CDN origins that stalled (cli-contract "Networks": a server that stays
 * silent cannot hold a run for more than a few minutes). A download gives up on silence after
 * its silent attempts (src/http/retry.ts, about 2 minutes); once {@link STALLED_AFTER_ITEMS}
 * downloads of the run gave up so on one origin, every later download from it fails at once
 * with `timeout` (exit 7; no request to that origin, no wait) instead of spending its own 2
 * minutes: a run of many packs against a stalled CDN ends in minutes, not hours, and the next
 * run resumes. Origins are those of download URLs other than the service's; the service's own
 * silence is the retry rules' alone.
 */
export class StalledOrigins {
  /** The origin of each silence error built by the client (see {@link noteSilence}). */
  readonly #originOf = new WeakMap<SvcError, string>();
  readonly #gaveUp = new Map<string, number>();
  readonly #onStalled: (line: string) => void;

  /** `onStalled`: one notice line, printed when an origin is first given up on. */
  constructor(onStalled: (line: string) => void) {
    this.#onStalled = onStalled;
  }

  /** Remembers that `error` (a `timeout`) is silence of `origin`. */
  noteSilence(error: SvcError, origin: string): void {
    this.#originOf.set(error, origin);
  }

  /**
   * A download gave up on silence with `error` (its last silent attempt's error, or one that
   * has it as cause): counts one more give-up on that error's origin, if it is one noted.
   */
  gaveUp(error: SvcError): void {
    const cause = error.cause;
    const origin =
      this.#originOf.get(error) ??
      (cause instanceof Error ? this.#originOf.get(cause as SvcError) : undefined);
    if (origin === undefined) return;
    const count = (this.#gaveUp.get(origin) ?? 0) + 1;
    this.#gaveUp.set(origin, count);
    if (count === STALLED_AFTER_ITEMS) {
      this.#onStalled(
        `${new URL(origin).host} went silent in ${count} downloads of this run; later downloads from it fail at once (run the same command again later to fetch them)`,
      );
    }
  }

  /**
   * The error a download to `url` fails with at once when its origin stalled, else undefined.
   * Not retried (`definite` on its cause: src/http/retry.ts).
   */
  refusal(url: URL, requestId: string): NetworkError | undefined {
    const count = this.#gaveUp.get(url.origin) ?? 0;
    if (count < STALLED_AFTER_ITEMS) return undefined;
    return new NetworkError(
      `${url.host} went silent in ${count} earlier downloads of this run; not waiting on it again (no request sent)`,
      {
        code: "timeout",
        requestId,
        detail: { stalled: true },
        cause: Object.assign(new Error("stalled origin"), { definite: true }),
      },
    );
  }
}
