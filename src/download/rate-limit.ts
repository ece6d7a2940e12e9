import type { Clock } from "../model.js";
import type { TransferPacing } from "../pacing/transfer.js";

/**
 * A token bucket of `rate` bytes per second holding at most `burst` bytes (cli-contract
 * "Operating unattended", `--limit-rate`). `take(bytes, nowMs)` spends the bytes and returns how
 * many ms to wait before they may pass; the bucket may go into debt, so successive calls
 * schedule successive releases. With `burst` ≤ rate/20, the bytes released in any window of
 * T seconds stay under rate·T + burst: within 5 % over 2 s.
 */
export class TokenBucket {
  readonly rate: number;
  readonly burst: number;
  #tokens: number;
  #lastMs: number;

  constructor(rateBytesPerSecond: number, nowMs: number, burst = defaultBurst(rateBytesPerSecond)) {
    this.rate = rateBytesPerSecond;
    this.burst = burst;
    this.#tokens = burst;
    this.#lastMs = nowMs;
  }

  /** Spends `bytes`; returns the ms to wait (0: pass now). */
  take(bytes: number, nowMs: number): number {
    const elapsed = Math.max(0, nowMs - this.#lastMs);
    this.#lastMs = Math.max(this.#lastMs, nowMs);
    this.#tokens = Math.min(this.burst, this.#tokens + (elapsed * this.rate) / 1000);
    this.#tokens -= bytes;
    return this.#tokens >= 0 ? 0 : Math.ceil((-this.#tokens * 1000) / this.rate);
  }
}

/** The bucket's size: 1/20 of a second of transfer, at least 256 bytes. */
export function defaultBurst(rateBytesPerSecond: number): number {
  return Math.max(256, Math.floor(rateBytesPerSecond / 20));
}

/** The receiver of a body's bytes: a promise pauses the socket until it settles. */
export type ChunkSink = (chunk: Buffer) => undefined | Promise<void>;

/**
 * The pacing of one response body. Hook it where body bytes flow (`ResponseBody.consume`):
 * `return gate.write(chunk, sink)` instead of `return sink(chunk)`, then `await gate.settled()`
 * before ending the sink. A returned promise pauses the socket (backpressure: nothing is
 * buffered beyond what the socket already handed over); throwing (the deadline) aborts the
 * transfer with that error, bytes written so far stay.
 */
export interface TransferGate {
  write(chunk: Buffer, sink: ChunkSink): undefined | Promise<void>;
  /** Resolves once every chunk given to {@link write} is written or failed. */
  settled(): Promise<void>;
}

/**
 * The gate for one body transfer, or undefined when the run has neither a rate limit nor a
 * deadline. `clock` (the client's, so its waits already end at the deadline) and `signal`
 * (interrupts) serve the waits. Chunks are cut into pieces no bigger than the bucket, so a slow
 * rate never lets one large socket read through at once. A chunk that must wait is copied
 * first: body chunks are borrowed, valid during the data callback only (cli-contract
 * "Integrity": pacing changes when bytes arrive, never which bytes are kept).
 */
export function openTransferGate(
  pacing: TransferPacing | undefined,
  clock: Clock,
  signal: AbortSignal | undefined,
): TransferGate | undefined {
  const rate = pacing?.rateBytesPerSecond;
  const deadline = pacing?.deadline;
  if (rate === undefined && deadline === undefined) return undefined;
  const bucket = rate === undefined ? undefined : new TokenBucket(rate, clock.now());
  let tail: Promise<void> | undefined;
  const writePieces = async (pieces: readonly [Buffer, number][], sink: ChunkSink) => {
    for (const [piece, releaseAt] of pieces) {
      const wait = releaseAt - clock.now();
      if (wait > 0) await clock.sleep(wait, signal);
      deadline?.check();
      await sink(piece);
    }
  };
  return {
    write(chunk, sink) {
      deadline?.check();
      if (chunk.length === 0) return undefined; // nothing to pace: never pause the socket for it
      if (!bucket) return sink(chunk);
      const now = clock.now();
      const releases: number[] = [];
      for (let at = 0; at < chunk.length; at += bucket.burst) {
        releases.push(now + bucket.take(Math.min(bucket.burst, chunk.length - at), now));
      }
      const last = releases[releases.length - 1];
      if (!tail && (last === undefined || last <= now)) return sink(chunk);
      // The chunk is borrowed (src/http/response-body.ts): held past this call, it is copied.
      const owned = Buffer.from(chunk);
      const pieces = releases.map((releaseAt, i): [Buffer, number] => [
        owned.subarray(i * bucket.burst, Math.min(owned.length, (i + 1) * bucket.burst)),
        releaseAt,
      ]);
      const previous = tail ?? Promise.resolve();
      tail = previous.then(() => writePieces(pieces, sink));
      return tail;
    },
    settled: async () => {
      await tail?.catch(() => undefined);
    },
  };
}
