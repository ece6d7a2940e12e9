/**
 * The mock CDN's body writer: a range of a layout's bytes to a response, paced, in pieces of
 * chosen sizes, with one byte damaged on request (docs/mock-service.md, "Fault injection").
 */
import type { ServerResponse } from "node:http";
import { type Layout, rangeChunks } from "./content.js";

/**
 * The bytes of `chunks` again, as subarrays of `sizes[0]`, `sizes[1]`, … bytes (then from the
 * start of `sizes` again); a size below 1 counts as 1. A piece that spans two chunks is copied.
 */
function* pieces(chunks: Iterable<Buffer>, sizes: readonly number[]): Generator<Buffer> {
  let turn = 0;
  const nextSize = (): number => Math.max(1, Math.floor(sizes[turn++ % sizes.length] ?? 1));
  let want = nextSize();
  let held: Buffer[] = [];
  let heldBytes = 0;
  for (const chunk of chunks) {
    let at = 0;
    while (at < chunk.length) {
      const take = Math.min(want - heldBytes, chunk.length - at);
      held.push(chunk.subarray(at, at + take));
      heldBytes += take;
      at += take;
      if (heldBytes === want) {
        yield held.length === 1 && held[0] ? held[0] : Buffer.concat(held);
        held = [];
        heldBytes = 0;
        want = nextSize();
      }
    }
  }
  if (heldBytes > 0) yield Buffer.concat(held);
}

/** `chunks` (starting at file offset `start`) with the byte at offset `flip` inverted, if given. */
function* withFlip(chunks: Iterable<Buffer>, start: number, flip?: number): Generator<Buffer> {
  let at = start;
  for (const chunk of chunks) {
    if (flip !== undefined && flip >= at && flip < at + chunk.length) {
      const copy = Buffer.from(chunk); // chunks may be shared pattern blocks
      copy[flip - at] = (copy[flip - at] ?? 0) ^ 0xff;
      yield copy;
    } else {
      yield chunk;
    }
    at += chunk.length;
  }
}

function waitDrain(res: ServerResponse): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (v: boolean) => {
      res.off("drain", onDrain);
      res.off("close", onClose);
      resolve(v);
    };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    res.on("drain", onDrain);
    res.on("close", onClose);
  });
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Write bytes `[start, end]` (inclusive) of the layout to `res`, honouring
 * backpressure and an optional pace in bytes per second (read before every chunk), in writes of
 * `sizes` bytes taken in turn when given (the `chunkSizes` fault); the byte at file offset
 * `flip`, when given, goes out with its bits inverted (the `flipByte` fault). Returns false if
 * the client went away.
 */
export async function streamBytes(
  res: ServerResponse,
  layout: Layout,
  start: number,
  end: number,
  throttle: () => number | undefined = () => undefined,
  sizes?: readonly number[],
  flip?: number,
): Promise<boolean> {
  if (end < start) return true;
  const initial = throttle();
  const chunkSize =
    initial !== undefined && initial > 0
      ? Math.max(1, Math.min(64 * 1024, Math.floor(initial / 20)))
      : 1 << 20;
  const chunks = withFlip(rangeChunks(layout, start, end, chunkSize), start, flip);
  // The throttle is read live, so a test can lift it while a response is under way.
  let due = Date.now();
  for (const chunk of sizes && sizes.length > 0 ? pieces(chunks, sizes) : chunks) {
    if (res.destroyed || res.writableEnded) return false;
    const bytesPerSecond = throttle();
    if (bytesPerSecond !== undefined && bytesPerSecond > 0) {
      // a wait under 1 ms is left to add up (a timer takes 1 ms at least: tiny pieces would
      // otherwise each cost one, far below the pace asked for)
      const wait = due - Date.now();
      if (wait >= 1) await sleep(wait);
      if (res.destroyed) return false;
      due = Math.max(due, Date.now()) + (chunk.length / bytesPerSecond) * 1000;
    }
    if (!res.write(chunk)) {
      if (!(await waitDrain(res))) return false;
    }
  }
  return !res.destroyed;
}
