import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../../helpers/cli.js";
import { useMockService } from "../../helpers/mock.js";
import { screenAfter } from "../../helpers/screen.js";

/**
 * cli-contract "Streams and output": on a terminal, `packs sync` shows the overall position
 * (pack N/M, bytes so far) above the file bar; without one, plain lines only.
 */

const shared = useMockService({ packSize: 16 * 1024 });

const COLUMNS = 60;

/** Runs svc-dl in-process with stderr a terminal; returns the exit code and each stderr write. */
async function onTerminal(argv: string[]): Promise<{ code: number; chunks: string[] }> {
  const r = await runCli(argv, { env: shared.env(), stderrIsTTY: true, columns: COLUMNS });
  return { code: r.code, chunks: r.stderrWrites };
}

const SO_FAR = /^pack \d+\/\d+, [\d.]+ (B|KiB) so far$/;

describe("packs sync progress", () => {
  it("a terminal shows one `pack N/M, bytes so far` line above the bar, updated in place", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-dl-progress-"));
    const r = await onTerminal(["packs", "sync", dir]);
    expect(r.code, r.chunks.join("")).toBe(0);
    const seen: string[] = [];
    const final = await screenAfter(r.chunks, COLUMNS, (lines) => {
      const live = lines.filter((l) => SO_FAR.test(l));
      // never two overall lines on the screen: the old one is replaced, not left behind
      expect(live.length).toBeLessThanOrEqual(1);
      for (const l of live) if (seen.at(-1) !== l) seen.push(l);
    });
    const total = Number(/^pack 1\/(\d+)/.exec(seen[0] ?? "")?.[1]);
    expect(total).toBeGreaterThan(1);
    expect(seen[0]).toBe(`pack 1/${total}, 0 B so far`);
    expect(seen[1]).toBe(`pack 2/${total}, 16.0 KiB so far`);
    expect(seen).toHaveLength(total);
    // once the run is over, the live lines are gone: one line per pack and the summary stay
    expect(final.filter((l) => SO_FAR.test(l) || /[█░]/.test(l))).toEqual([]);
    expect(final.filter((l) => / 16\.0 KiB in /.test(l))).toHaveLength(total);
    expect(final.filter((l) => /^sync of /.test(l))).toHaveLength(1);
  });

  it("-v lines written while the bar is drawn stay on the screen above it", async () => {
    // the connection drops mid-file: the retry's requests are logged while the bar is live
    shared.mock.set({ faults: { dropAfterBytes: { bytes: 8 * 1024, count: 1 } } });
    const dir = mkdtempSync(join(tmpdir(), "svc-dl-progress-"));
    const r = await onTerminal(["-v", "pack", "get", "low-poly-forest", "-o", `${dir}/`]);
    expect(r.code, r.chunks.join("")).toBe(0);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escape sequences
    const plain = r.chunks.join("").replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "");
    const logged = plain.split("\n").filter((l) => /^GET /.test(l));
    expect(logged.length).toBeGreaterThan(2);
    const final = await screenAfter(r.chunks, COLUMNS);
    // each logged line is on the screen, whole and in order (wrapped or cut to the width)
    const text = final.join("");
    const at = logged.map((l) => text.indexOf(l));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(text).toContain("connection lost while reading");
    expect(final.at(-1)).toMatch(/^low-poly-forest\.zip {2}16\.0 KiB in /);
  });

  it("without a terminal there is no overall line", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-dl-progress-"));
    const r = await runCli(["packs", "sync", dir], { env: shared.env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/so far/);
  });
});
