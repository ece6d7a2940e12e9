import { describe, expect, it } from "vitest";
import { openTransferGate, TokenBucket } from "../../src/download/rate-limit.js";
import type { Clock } from "../../src/model.js";
import { Deadline, deadlineClock } from "../../src/pacing/deadline.js";
import { durationSeconds, rateBytesPerSecond } from "../../src/pacing/units.js";
import { manualClock } from "../helpers/clock.js";
import { instantClock } from "../helpers/context.js";

describe("TokenBucket", () => {
  it.each([2048, 64 * 1024, 5 * 1024 * 1024])(
    "keeps any 2-second window within 10 %% of %i bytes/s for a greedy sender",
    (rate) => {
      const bucket = new TokenBucket(rate, 0);
      // A sender offering 16 KiB pieces (no bigger than the bucket at high rates) as fast as allowed.
      const piece = Math.min(16 * 1024, bucket.burst);
      const releases: number[] = [];
      let now = 0;
      while (now < 20_000) {
        now += bucket.take(piece, now);
        releases.push(now);
      }
      for (let start = 0; start < 18_000; start += 50) {
        const inWindow = releases.filter((t) => t >= start && t < start + 2000).length * piece;
        expect(inWindow).toBeLessThanOrEqual(rate * 2 * 1.1);
      }
      // and it is not slower than asked: 20 s carried about 20 s of bytes
      expect(releases.length * piece).toBeGreaterThanOrEqual(rate * 20 * 0.95);
    },
  );

  it("an idle pause does not bank more than the bucket", () => {
    const bucket = new TokenBucket(1000, 0);
    expect(bucket.take(bucket.burst, 60_000)).toBe(0);
    expect(bucket.take(1000, 60_000)).toBe(1000);
  });
});

describe("openTransferGate", () => {
  it("pauses (returns a promise) while the bucket is empty, writes pieces in order, never more than given", async () => {
    const manual = manualClock(0);
    const sleeps: number[] = [];
    const clock: Clock = {
      now: manual.now,
      sleep: async (ms) => {
        sleeps.push(ms);
        manual.advance(ms);
      },
    };
    const gate = openTransferGate({ rateBytesPerSecond: 4096 }, clock, undefined);
    const written: Buffer[] = [];
    const sink = (c: Buffer) => {
      written.push(c);
      return undefined;
    };
    const data = Buffer.alloc(8192, 7);
    const first = gate?.write(data.subarray(0, 4096), sink);
    const second = gate?.write(data.subarray(4096), sink);
    expect(first).toBeInstanceOf(Promise);
    expect(second).toBeInstanceOf(Promise);
    await gate?.settled();
    expect(Buffer.concat(written).equals(data)).toBe(true);
    // every piece is at most the bucket (1/20 s at least 256 bytes)
    expect(Math.max(...written.map((c) => c.length))).toBeLessThanOrEqual(256);
    // 8 KiB at 4 KiB/s, less the first bucket
    expect(manual.now()).toBeGreaterThanOrEqual(1900);
    expect(manual.now()).toBeLessThanOrEqual(2000);
    expect(gate?.write(Buffer.alloc(0), sink)).toBeUndefined();
  });

  it("a rate-limit wait ends at the deadline with deadline_reached; bytes before it stay written", async () => {
    const manual = manualClock(0);
    const deadline = new Deadline(1, manual);
    const clock = deadlineClock(instantClock(manual), deadline);
    const gate = openTransferGate({ rateBytesPerSecond: 2048, deadline }, clock, undefined);
    let written = 0;
    const p = gate?.write(Buffer.alloc(8192), (c) => {
      written += c.length;
      return undefined;
    });
    await expect(p).rejects.toMatchObject({ code: "deadline_reached", exitCode: 10 });
    expect(manual.now()).toBe(1000);
    expect(written).toBeGreaterThan(1024);
    expect(written).toBeLessThan(4096);
  });

  it("without a rate or a deadline there is no gate", () => {
    expect(openTransferGate({}, instantClock(manualClock(0)), undefined)).toBeUndefined();
  });
});

describe("units", () => {
  it("reads rates like curl (powers of 1024) and refuses others", () => {
    expect(rateBytesPerSecond("500K")).toBe(500 * 1024);
    expect(rateBytesPerSecond("5m")).toBe(5 * 1024 * 1024);
    expect(rateBytesPerSecond("1G")).toBe(1024 ** 3);
    expect(rateBytesPerSecond("65536")).toBe(65536);
    for (const bad of ["", "fast", "5X", "-1K", "1K"])
      expect(rateBytesPerSecond(bad)).toBeUndefined();
  });

  it("reads durations", () => {
    expect(durationSeconds("90s")).toBe(90);
    expect(durationSeconds("30m")).toBe(1800);
    expect(durationSeconds("2h")).toBe(7200);
    expect(durationSeconds("45")).toBe(45);
    for (const bad of ["", "0", "2d", "soon", "-5"]) expect(durationSeconds(bad)).toBeUndefined();
  });
});

describe("openTransferGate with borrowed chunks", () => {
  it("a chunk that waits is copied: the caller may reuse its buffer as soon as write returns", async () => {
    const clock = instantClock(manualClock(0));
    const gate = openTransferGate({ rateBytesPerSecond: 4096 }, clock, undefined);
    const reused = Buffer.alloc(4096);
    const written: Buffer[] = [];
    const sink = (c: Buffer) => {
      written.push(Buffer.from(c));
      return undefined;
    };
    const sent: Buffer[] = [];
    for (let i = 1; i <= 4; i++) {
      reused.fill(i); // the transport's next read lands in the same memory
      sent.push(Buffer.from(reused));
      gate?.write(reused, sink);
    }
    reused.fill(0xee);
    await gate?.settled();
    expect(Buffer.concat(written).equals(Buffer.concat(sent))).toBe(true);
  });
});
