import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MockService } from "../../src/mock-server/types.js";
import { runCli } from "../helpers/cli.js";
import { type SyncDoc, startSyncMock } from "../helpers/sync.js";

/** `packs sync --include/--exclude/--category` over real HTTP (cli-contract "packs sync", Selection). */

let mock: MockService;
let env: Record<string, string>;
let owned: string[];

beforeAll(async () => {
  ({ mock, env, owned } = await startSyncMock(16 * 1024));
});
afterAll(async () => {
  await mock.close();
});

const tempDir = () => mkdtempSync(join(tmpdir(), "svc-dl-select-"));

/** Slugs of the pack download requests (API route or record URL) since the log was cleared. */
function downloaded(): string[] {
  return mock.requests
    .filter((e) => e.origin === "api" && /^\/api\/v1\/packs\/[^/]+\/download/.test(e.url))
    .map((e) => decodeURIComponent(e.url.split("/")[4] ?? ""));
}

async function sync(args: string[]) {
  const r = await runCli(["packs", "sync", ...args, "--json"], { env });
  return { ...r, doc: JSON.parse(r.stdout) as SyncDoc & { summary: { filtered: number } } };
}

describe("packs sync selection", () => {
  it("--include takes only matching slugs; the others are never requested; a second run makes no download request", async () => {
    expect(owned).toContain("desert-rocks");
    const dir = tempDir();
    mock.clearLog();
    const first = await sync([dir, "--include", "desert-*"]);
    expect(first.code).toBe(0);
    expect(first.doc.items.map((i) => i.slug)).toEqual(["desert-rocks"]);
    expect(first.doc.summary).toEqual({
      downloaded: 1,
      up_to_date: 0,
      failed: 0,
      filtered: owned.length - 1,
    });
    expect(downloaded()).toEqual(["desert-rocks"]);
    mock.clearLog();
    const second = await sync([dir, "--include", "desert-*"]);
    expect(second.code).toBe(0);
    expect(second.doc.summary).toMatchObject({
      downloaded: 0,
      up_to_date: 1,
      filtered: owned.length - 1,
    });
    expect(downloaded()).toEqual([]);
    expect(mock.requests.filter((e) => e.origin === "cdn")).toEqual([]);
  });

  it("--exclude wins over --include, and both repeat", async () => {
    const dir = tempDir();
    mock.clearLog();
    const r = await sync([
      dir,
      "--include",
      "*-*",
      "--include",
      "desert-rocks",
      "--exclude",
      "low-poly-*",
      "--exclude",
      "sci-fi-props",
    ]);
    expect(r.code).toBe(0);
    const expected = owned.filter((s) => !s.startsWith("low-poly-") && s !== "sci-fi-props");
    expect(r.doc.items.map((i) => i.slug)).toEqual(expected);
    expect(downloaded().sort()).toEqual([...expected].sort());
    expect(r.doc.summary.filtered).toBe(owned.length - expected.length);
  });

  it("--category keeps packs having any of the named categories, case-insensitively", async () => {
    const dir = tempDir();
    const r = await sync([dir, "--category", "NATURE", "--category", "Medieval"]);
    expect(r.code).toBe(0);
    expect(r.doc.items.map((i) => i.slug).sort()).toEqual(
      ["desert-rocks", "low-poly-forest", "medieval-village"]
        .filter((s) => owned.includes(s))
        .sort(),
    );
  });

  it("a pattern that matches nothing owned is a warning, not a failure", async () => {
    const dir = tempDir();
    mock.clearLog();
    const r = await sync([dir, "--include", "no-such-*", "--include", "desert-rocks"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("--include no-such-* matches no pack you own");
    expect(r.doc.items.map((i) => i.slug)).toEqual(["desert-rocks"]);
  });

  it("--dry-run shows the selection and requests no download", async () => {
    const dir = tempDir();
    mock.clearLog();
    const r = await runCli(["packs", "sync", dir, "--dry-run", "--include", "desert-*"], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("desert-rocks");
    for (const slug of owned.filter((s) => s !== "desert-rocks")) {
      expect(r.stdout).not.toContain(slug);
    }
    expect(r.stderr).toContain("left out");
    expect(downloaded()).toEqual([]);
  });
});
