import type { HttpClientOptions } from "../http/request-types.js";
import { systemClock } from "../http/system-clock.js";
import type { Clock } from "../model.js";
import { type Deadline, deadlineClock, deadlineSignal } from "./deadline.js";

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
 * unattended"), for the CLI (`Session.http()`) and the library (`createClient`) alike: with a
 * deadline, waits end at it and a transfer stops at it (also by a real-time timer, unless a
 * clock is injected: that clock is then the only time there is).
 */
export function runPacing(
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
