import { systemClock } from "./clock.js";
import { SvcError } from "./errors/svc-error.js";
import { HttpClient } from "./http/client.js";
import type { HttpClientOptions } from "./http/request-types.js";
import type { Clock } from "./model.js";
import { type Deadline, deadlineClock, deadlineSignal } from "./pacing/deadline.js";

/**
 * What one run works with (conventions "services.ts"): its HTTP client, and the clock and abort
 * signal every wait, lock and transfer of the run takes. With `--max-duration` (`maxDuration`)
 * the clock's waits end at the deadline and the signal aborts at it. Callers pass `signal` and
 * `clock` down themselves; nothing reads them back from the client.
 */
export interface Services {
  http: HttpClient;
  clock: Clock;
  signal: AbortSignal | undefined;
}

/** What {@link createServices} builds a run from: the HTTP settings and the run's pacing. */
export interface ServiceSettings
  extends Omit<HttpServiceSettings, "signal" | "clock" | "transferPacing">,
    RunPacingSettings {}

/**
 * The composition root (conventions "services.ts"), used by the CLI's `Session` and the
 * library's `createClient` alike: the run's clock and signal ({@link runPacing}: the
 * injected or system clock, the caller's signal, both bound to a deadline when there is one)
 * and its HTTP client built with them ({@link createHttp}). Throws as {@link createHttp}.
 */
export function createServices(settings: ServiceSettings): Services {
  const { rateBytesPerSecond, deadline, clock, signal, ...http } = settings;
  const pacing = runPacing({ rateBytesPerSecond, deadline, clock, signal });
  return {
    http: createHttp({ ...http, ...pacing }),
    clock: pacing.clock ?? systemClock,
    signal: pacing.signal,
  };
}

/**
 * What a run's HTTP client is built from, by the CLI (`Session.http()`) and the library
 * (`createClient`) alike: the client's own options, with the API key given as a value (or
 * undefined) instead of a getter.
 */
export interface HttpServiceSettings extends Omit<HttpClientOptions, "apiKey"> {
  /** The API key, or undefined: a request that needs one then throws `no_api_key` (exit 3). */
  apiKey: string | undefined;
  /** The `no_api_key` message's wording of where keys come from, and its hint. */
  missingKey?: { given: "configured" | "given"; library?: boolean };
}

/**
 * The composition root of HTTP: the one place a run's {@link HttpClient} is built (keep-alive
 * dispatcher or the injected one, proxy, extra CAs, retries, pacing, the run's clock and
 * signal) and the one place `no_api_key` is thrown (cli-contract "Exit codes": 3). Throws
 * UsageError (exit 2) `invalid_proxy` / `invalid_ca_file` for a bad proxy or CA file.
 */
export function createHttp(settings: HttpServiceSettings): HttpClient {
  const { apiKey, missingKey, ...options } = settings;
  return new HttpClient({
    ...options,
    apiKey: () => {
      if (apiKey === undefined) {
        throw new SvcError(
          `no API key ${missingKey?.given ?? "configured"} for ${settings.baseUrl.origin}`,
          {
            code: "no_api_key",
            detail: { library: missingKey?.library === true },
          },
        );
      }
      return apiKey;
    },
  });
}

/** What {@link runPacing} builds the HTTP options of a run from. */
export interface RunPacingSettings {
  /** `--limit-rate` / the library's `limitRate`, already parsed: bytes per second. */
  rateBytesPerSecond?: number | undefined;
  /** `--max-duration` / the library's `maxDuration`: the run's window. */
  deadline?: Deadline | undefined;
  /** An injected (test) clock; default the system clock. */
  clock?: Clock | undefined;
  /** The caller's cancel signal. */
  signal?: AbortSignal | undefined;
}

/**
 * The signal, clock and transfer pacing of a run's HTTP client (cli-contract "Operating
 * unattended"), for the CLI's `Session` and the library's `createClient` alike: with a
 * deadline, waits end at it and a transfer stops at it (also by a real-time timer, unless a
 * clock is injected: that clock is then the only time there is).
 */
function runPacing(
  settings: RunPacingSettings,
): Pick<HttpClientOptions, "signal" | "clock" | "transferPacing"> {
  const { rateBytesPerSecond, deadline, clock, signal } = settings;
  const pacing = {
    ...(rateBytesPerSecond !== undefined || deadline
      ? { transferPacing: { rateBytesPerSecond, deadline } }
      : {}),
  };
  if (!deadline) {
    return { ...(signal ? { signal } : {}), ...(clock ? { clock } : {}), ...pacing };
  }
  const signals = [signal, clock ? undefined : deadlineSignal(deadline)];
  const live = signals.filter((s): s is AbortSignal => s !== undefined);
  const any = live.length > 1 ? AbortSignal.any(live) : live[0];
  return {
    clock: deadlineClock(clock ?? systemClock, deadline),
    ...(any ? { signal: any } : {}),
    ...pacing,
  };
}
