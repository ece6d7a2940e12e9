import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createProgress } from "../../src/io/progress.js";

function sink(): { out: Writable; text: () => string } {
  let text = "";
  const out = new Writable({
    write(chunk, _enc, cb) {
      text += String(chunk);
      cb();
    },
  });
  return { out, text: () => text };
}

/** Plain lines, as on a stderr that is not a terminal. */
const PLAIN = { isTTY: false, progress: true, quiet: false };

describe("plain progress (no TTY)", () => {
  it("prints one line per finished file and at most one line per 30 s, with no escape sequences", async () => {
    let now = 0;
    const s = sink();
    const p = await createProgress({ ...PLAIN, stderr: s.out, now: () => now });
    p.start({ name: "big.zip", total: 100 * 1024 * 1024, offset: 0 });
    // 100 s of transfer, 1 MiB chunks, 1 chunk every 100 ms
    for (let i = 0; i < 1000; i++) {
      now += 100;
      p.advance(100 * 1024);
    }
    p.done({ name: "big.zip", bytes: 100 * 1024 * 1024, resumedFrom: 0, outcome: "downloaded" });
    const lines = s.text().trimEnd().split("\n");
    const periodic = lines.filter((l) => l.includes("ETA"));
    expect(periodic.length).toBeGreaterThanOrEqual(2);
    expect(periodic.length).toBeLessThanOrEqual(4);
    expect(periodic[0]).toMatch(/big\.zip {2}\d+% of 100\.0 MiB {2}.*\/s {2}ETA /);
    expect(lines.at(-1)).toMatch(/^big\.zip {2}100\.0 MiB in 1m40s \(1000\.0 KiB\/s\)$/);
    expect(s.text()).not.toContain("\u001b");
  });

  it("prints nothing when quiet, and no periodic lines with --no-progress", async () => {
    const quiet = sink();
    const q = await createProgress({ stderr: quiet.out, isTTY: true, progress: true, quiet: true });
    q.start({ name: "a", total: 10, offset: 0 });
    q.advance(10);
    q.done({ name: "a", bytes: 10, resumedFrom: 0, outcome: "downloaded" });
    expect(quiet.text()).toBe("");
    let now = 0;
    const plain = sink();
    const p = await createProgress({
      stderr: plain.out,
      isTTY: true,
      progress: false,
      quiet: false,
      now: () => now,
    });
    p.start({ name: "b.glb", total: 1000, offset: 0 });
    for (let i = 0; i < 1000; i++) {
      now += 1000;
      p.advance(1);
    }
    p.done({ name: "b.glb", bytes: 1000, resumedFrom: 400, outcome: "resumed" });
    expect(plain.text().trimEnd().split("\n")).toEqual([
      expect.stringMatching(/^b\.glb {2}1000 B in .*, resumed from 400 B$/),
    ]);
  });
});

describe("the finished line of a resumed file", () => {
  it("leaves the rate out when no time could be measured, never `(? B/s)`", async () => {
    const s = sink();
    // a clock that stands still: the bytes took no measurable time
    const p = await createProgress({ ...PLAIN, stderr: s.out, now: () => 5000 });
    p.start({ name: "c.glb", total: 16384, offset: 3000 });
    p.advance(13384);
    p.done({ name: "c.glb", bytes: 16384, resumedFrom: 3000, outcome: "resumed" });
    expect(s.text()).toBe("c.glb  16.0 KiB in 0.0s, resumed from 2.9 KiB\n");
  });
});

describe("bar progress (TTY)", () => {
  it("draws a cli-progress bar and restores the cursor on stop", async () => {
    const s = sink();
    Object.assign(s.out, {
      isTTY: true,
      columns: 120,
      cursorTo: (_x: number, _y?: number, cb?: () => void) => {
        cb?.();
        return true;
      },
      clearLine: (_dir: number, cb?: () => void) => {
        cb?.();
        return true;
      },
      moveCursor: (_dx: number, _dy: number, cb?: () => void) => {
        cb?.();
        return true;
      },
    });
    const p = await createProgress({ stderr: s.out, isTTY: true, progress: true, quiet: false });
    p.start({ name: "pack.zip", total: 1000, offset: 0 });
    p.advance(500);
    p.stop();
    expect(s.text()).toContain("\u001b[?25l"); // cursor hidden while drawing
    expect(s.text()).toContain("\u001b[?25h"); // and shown again
    expect(s.text()).toContain("pack.zip");
  });
});
