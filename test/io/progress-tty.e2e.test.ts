import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { registerSecret, spawnCli } from "../helpers/cli.js";
import { useMockService } from "../helpers/mock.js";
import { screenAfter } from "../helpers/screen.js";

// Progress on a real terminal (cli-contract "Streams and output"): a cli-progress bar per file
// when stderr is a TTY, none with --quiet; `packs sync` adds a "pack N/M" line above the bar.
const shared = useMockService({ packSize: 512 * 1024 });
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching terminal escape sequences
const ESCAPE = /\u001b\[/;

function workDir(): string {
  return mkdtempSync(join(tmpdir(), "svc-dl-tty-"));
}

describe("progress on a terminal", () => {
  it("pack get redraws a bar while bytes arrive, then a summary line, and restores the terminal", async () => {
    registerSecret(shared.mock.apiKey);
    shared.mock.set({ faults: { throttleBytesPerSecond: 512 * 1024 } });
    const dir = workDir();
    const r = await spawnCli(["pack", "get", "low-poly-forest"], {
      terminal: true,
      env: shared.env(),
      cwd: dir,
    });
    expect(r.code).toBe(0);
    expect(existsSync(join(dir, "low-poly-forest.zip"))).toBe(true);
    expect(r.stdout).toMatch(ESCAPE);
    expect(r.stdout).toContain("low-poly-forest.zip");
    // At least one redraw between 0 % and the end (the transfer takes about a second).
    expect(r.stdout).toMatch(/[█░] +[1-9]\d?% /);
    expect(r.stdout).toMatch(/low-poly-forest\.zip {2}512\.0 KiB in /);
    // A hidden cursor is shown again at the end.
    if (r.stdout.includes("\u001b[?25l")) expect(r.stdout).toContain("\u001b[?25h");
  });

  it("--quiet on a terminal draws no bar", async () => {
    const dir = workDir();
    const r = await spawnCli(["pack", "get", "low-poly-forest", "--quiet"], {
      terminal: true,
      env: shared.env(),
      cwd: dir,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("%");
    expect(r.stdout).not.toMatch(ESCAPE);
  });

  it("packs sync shows a pack N/M line above the bar, updated in place", async () => {
    const dir = workDir();
    const r = await spawnCli(["packs", "sync", dir], {
      terminal: true,
      env: shared.env(),
      cwd: dir,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/pack 1\/\d+, 0 B so far/);
    expect(r.stdout).toMatch(/pack 2\/\d+, 512\.0 KiB so far/);
    expect(r.stdout).toMatch(ESCAPE);
    // what the terminal shows at the end: no overall line left behind, one line per pack
    const final = await screenAfter([r.stdout], 100);
    expect(final.filter((l) => / so far$/.test(l))).toEqual([]);
    const packs = Number(/pack 1\/(\d+), 0 B so far/.exec(r.stdout)?.[1]);
    expect(final.filter((l) => /\.zip {2}512\.0 KiB in /.test(l))).toHaveLength(packs);
  });
});
