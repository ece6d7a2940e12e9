/**
 * `-o -` into a consumer that stopped reading (cli-contract "Interrupts", "Downloads"): svc-dl
 * waits for stdout to drain, and an interrupt ends that wait, also one that came while the
 * bytes were being handed over (before the wait began) of a small file that arrived whole with
 * its head (no transfer left to abort). Real loopback http.
 */
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { useMockService } from "../helpers/mock.js";

const shared = useMockService({ packSize: 3_000 });

/** A stdout whose reader never reads on (no write is ever acknowledged); tells `onWrite`. */
class StalledStdout extends Writable {
  writes = 0;
  constructor(private readonly onWrite: () => void) {
    super({ highWaterMark: 1024 });
  }
  override _write(_chunk: Buffer, _enc: BufferEncoding, _done: () => void): void {
    this.writes += 1;
    this.onWrite();
  }
}

/** `pack get -o -` into `out`, whose writes may call the run's Ctrl-C (`interrupt`). */
async function getInto(make: (interrupt: () => void) => StalledStdout) {
  let interrupt = (): void => undefined;
  const out = make(() => interrupt());
  const r = await runCli(["pack", "get", "desert-rocks", "-o", "-"], {
    env: shared.env(),
    stdout: out,
    onStart: (fn) => {
      interrupt = fn;
    },
  });
  return { ...r, writes: out.writes };
}

describe("-o - into a stalled consumer", () => {
  it("Ctrl-C during the write that fills stdout's buffer: exit 130, no wait for a drain that never comes", async () => {
    const r = await getInto((interrupt) => new StalledStdout(interrupt));
    expect(r.code, r.stderr).toBe(130);
    expect(r.writes).toBe(1);
  });

  it("Ctrl-C while svc-dl waits for the drain: exit 130", async () => {
    const r = await getInto((interrupt) => new StalledStdout(() => setImmediate(interrupt)));
    expect(r.code, r.stderr).toBe(130);
    expect(r.writes).toBe(1);
  });
});
