import type { Writable } from "node:stream";
import type { Clock } from "../../src/model.js";
import { testContext } from "./context.js";

/** One turn of the event loop, I/O poll included (two check phases apart). */
export const turn = (): Promise<void> =>
  new Promise((resolve) => setImmediate(() => setImmediate(resolve)));

/**
 * A clock whose sleeps move time on and end one event-loop turn later: a `--limit-rate` wait
 * holds its piece across socket reads, as with the real clock, without sleeping for real.
 */
export function turningClock(): Clock {
  let now = Date.now();
  return {
    now: () => now,
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      now += ms;
      await turn();
    },
  };
}

/** What {@link runOnTurningClock} returns. */
export interface TurningRun {
  code: number;
  /** stdout's bytes (empty when `stdout` was given). */
  stdout: Buffer;
  stdoutText: string;
  stderr: string;
}

/**
 * Runs the CLI in-process (`main(argv, ctx)`) on a {@link turningClock}, with `stdout` as the
 * process's stdout when given (e.g. a slow consumer).
 */
export async function runOnTurningClock(
  args: string[],
  env: Record<string, string>,
  stdout?: Writable,
): Promise<TurningRun> {
  const { main } = await import("../../src/cli.js");
  const t = testContext({ env });
  const io = stdout ? { ...t.ctx.io, stdout } : t.ctx.io;
  const code = await main(args, { ...t.ctx, io, clock: turningClock() });
  return { code, stdout: t.stdout.bytes, stdoutText: t.stdout.text, stderr: t.stderr.text };
}
