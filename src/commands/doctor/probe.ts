/** The origin doctor probes (or a proxy on the way), and where its address was set (`--base-url`, `SVC_BASE_URL`, `--proxy`…). */
export interface ProbeTarget {
  url: URL;
  source: string;
}

/** The host and port a connection to `url` opens (brackets of an IPv6 address removed). */
export function endpointOf(url: URL): { host: string; port: number } {
  const port = Number(url.port) || (url.protocol === "https:" ? 443 : 80);
  return { host: url.hostname.replace(/^\[|\]$/g, ""), port };
}

/**
 * Doctor's network probes (DNS, TCP, TLS through a proxy's tunnel, the key check's request)
 * share this many ms in all (cli-contract "Operating unattended", doctor): against a host that
 * never answers, doctor ends within it, each probe that ran out named.
 */
export const NETWORK_PROBE_BUDGET_MS = 15_000;

/** One shared time budget of doctor's network probes (see {@link NETWORK_PROBE_BUDGET_MS}). */
export class ProbeBudget {
  readonly totalMs: number;
  readonly #end: number;

  /** `totalMs`: the whole budget (tests shorten it). */
  constructor(totalMs = NETWORK_PROBE_BUDGET_MS) {
    this.totalMs = totalMs;
    this.#end = performance.now() + totalMs;
  }

  /** Ms left (at least 1, so a probe started at the end fails at once rather than never). */
  remainingMs(): number {
    return Math.max(1, Math.round(this.#end - performance.now()));
  }

  /** True once the budget is spent. */
  spent(): boolean {
    return performance.now() >= this.#end;
  }

  /** The words of a probe that ran out of it: `no answer within doctor's 15 s …`. */
  ranOut(): string {
    return `no answer within doctor's ${this.totalMs / 1000} s budget for network probes`;
  }

  /**
   * A signal that aborts when the budget is spent, its reason a timeout that is not retried
   * (undici's headers-timeout code, `definite`), naming `probe`.
   */
  signal(probe: string): AbortSignal {
    const controller = new AbortController();
    const timer = setTimeout(
      () =>
        controller.abort(
          Object.assign(new Error(`${probe}: ${this.ranOut()}`), {
            code: "UND_ERR_HEADERS_TIMEOUT",
            definite: true,
          }),
        ),
      this.remainingMs(),
    );
    timer.unref();
    return controller.signal;
  }

  /** `work`, or `onTimeout()` once the budget is spent first (`work` is then left to settle). */
  async race<T>(work: Promise<T>, onTimeout: () => T): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<T>((resolve) => {
      timer = setTimeout(() => resolve(onTimeout()), this.remainingMs());
      timer.unref();
    });
    try {
      return await Promise.race([work, late]);
    } finally {
      clearTimeout(timer);
    }
  }
}
