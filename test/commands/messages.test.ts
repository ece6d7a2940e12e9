import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { makeProject } from "../helpers/install.js";
import { useMockService } from "../helpers/mock.js";

const shared = useMockService();
const tempDir = () => mkdtempSync(join(tmpdir(), "svc-dl-msg-"));

interface JsonError {
  error: { code: string; message: string; hint: string | null; retryable: boolean };
}
const lastJsonError = (stderr: string): JsonError =>
  JSON.parse(stderr.trim().split("\n").at(-1) ?? "") as JsonError;

describe("a hint tests what was passed, not what the command accepts", () => {
  const legacy = () => ({
    SVC_BASE_URL: shared.mock.baseUrl,
    SVC_LICENSE_KEY: shared.mock.licenseKey,
  });

  it("legacy get --asset with a missing file: no 'try without --edition'", async () => {
    const r = await runCli(
      ["--json", "legacy", "get", "--asset", "forest-broken-stump", "-o", `${tempDir()}/`],
      { env: legacy() },
    );
    expect(r.code).toBe(5);
    const doc = lastJsonError(r.stderr);
    expect(doc.error.code).toBe("file_unavailable");
    expect(doc.error.hint).not.toContain("--edition");
    expect(doc.error.hint).toMatch(/not available for download right now/);
  });

  it("legacy get --pack --edition authoring without one: 'try without --edition', which works", async () => {
    const dir = tempDir();
    const args = ["legacy", "get", "--pack", "sci-fi-props", "-o", `${dir}/`];
    const r = await runCli(["--json", ...args, "--edition", "authoring"], { env: legacy() });
    expect(r.code).toBe(5);
    expect(lastJsonError(r.stderr).error.hint).toMatch(/try without --edition/);
    const again = await runCli(["--json", ...args], { env: legacy() });
    expect(again.code).toBe(0);
  });

  it("legacy get --asset with an unknown slug points at the assets, not the packs", async () => {
    const r = await runCli(
      ["--json", "legacy", "get", "--asset", "no-such-asset", "-o", `${tempDir()}/`],
      { env: legacy() },
    );
    expect(r.code).toBe(5);
    const hint = lastJsonError(r.stderr).error.hint ?? "";
    expect(hint).toContain("assets list");
    expect(hint).not.toContain("packs list");
  });
});

describe("the outcome of several slugs says whether running again may help", () => {
  it("only not_found failed: get_incomplete is not retryable", async () => {
    const r = await runCli(
      ["--json", "asset", "get", "free-sample-cube", "no-such-asset", "-o", `${tempDir()}/`],
      { env: shared.env() },
    );
    expect(r.code).toBe(1);
    const doc = lastJsonError(r.stderr);
    expect(doc.error.code).toBe("get_incomplete");
    expect(doc.error.retryable).toBe(false);
  });

  it("a server failure among them: retryable", async () => {
    shared.mock.set({ faults: { serverError: { count: 100, origin: "cdn" } } });
    const r = await runCli(
      ["--json", "asset", "get", "no-such-asset", "free-sample-cube", "-o", `${tempDir()}/`],
      { env: shared.env() },
    );
    expect(r.code).toBe(1);
    const doc = lastJsonError(r.stderr);
    expect(doc.error.code).toBe("get_incomplete");
    expect(doc.error.retryable).toBe(true);
  });
});

describe("--json: stderr holds JSON lines only", () => {
  it("several slugs with a failed one: a warning line, then the error line, all JSON", async () => {
    const r = await runCli(
      ["--json", "asset", "get", "free-sample-cube", "no-such-asset", "-o", `${tempDir()}/`],
      { env: shared.env() },
    );
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split("\n");
    expect(lines.length).toBeGreaterThan(1);
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(parsed[0]).toEqual({
      warning: { code: "not_found", message: expect.stringContaining("no-such-asset") as unknown },
    });
    expect(parsed.at(-1)).toHaveProperty("error.code", "get_incomplete");
    expect(JSON.parse(r.stdout)).toHaveProperty("summary.failed", 1);
  });
});

describe("install checks the configuration before any item", () => {
  for (const [name, baseUrl, code] of [
    ["no base URL", undefined, "no_base_url"],
    ["an ftp:// base URL", "ftp://assets.example.com", "invalid_base_url"],
  ] as const) {
    it(`${name}: exit 2 with whoami's code and message, no item tried`, async () => {
      const project = makeProject();
      const env = {
        SVC_BASE_URL: baseUrl,
        SVC_API_KEY: shared.mock.apiKey,
        SVC_DL_CACHE_DIR: project.cache,
      };
      const whoami = await runCli(["--json", "whoami"], { env });
      const r = await runCli(["--json", "install"], { env, cwd: project.root });
      expect(r.code).toBe(2);
      if (baseUrl === undefined) {
        // found once an item needs the network: a stop part-way, so the run's document is printed
        const partial = JSON.parse(r.stdout) as {
          complete: boolean;
          items: unknown[];
          error: { code: string };
        };
        expect(partial.complete).toBe(false);
        expect(partial.items).toEqual([]);
        expect(partial.error.code).toBe(code);
      } else {
        expect(r.stdout).toBe("");
      }
      const lines = r.stderr.trim().split("\n");
      expect(lines).toHaveLength(1);
      const doc = lastJsonError(r.stderr);
      expect(doc.error.code).toBe(code);
      expect(doc.error.retryable).toBe(false);
      expect(doc.error).toEqual(lastJsonError(whoami.stderr).error);
      expect(existsSync(join(project.root, "svc-dl.lock"))).toBe(false);
      const human = await runCli(["install"], { env, cwd: project.root });
      expect(human.code).toBe(2);
      // a given base URL is checked before any item is planned; none at all only matters once
      // an item needs the network (a warm cache does not), and then stops the run
      if (baseUrl !== undefined) expect(human.stderr).toMatch(/^error: /);
      expect(human.stderr).not.toMatch(/failed|retryable/);
    });
  }
});

describe("one line per item, each true", () => {
  it("several slugs: no header line; an up-to-date item does not borrow the last label", async () => {
    const dir = tempDir();
    await runCli(["asset", "get", "free-sample-cube", "-o", `${dir}/`], { env: shared.env() });
    const r = await runCli(
      ["asset", "get", "village-well", "free-sample-cube", "no-such-asset", "-o", `${dir}/`],
      { env: shared.env() },
    );
    expect(r.code).toBe(1);
    // without a terminal each line carries its time (cli-contract "Plain logs carry time")
    const lines = r.stderr
      .trim()
      .split("\n")
      .map((l) => l.replace(/^\d\d:\d\d:\d\d /, ""));
    expect(lines.filter((l) => l.includes("village-well"))).toEqual([
      expect.stringMatching(/^asset 1\/3 {2}village-well\.glb {2}.* in /),
    ]);
    expect(lines.filter((l) => l.includes("free-sample-cube.glb"))).toEqual([
      expect.stringMatching(/^free-sample-cube\.glb {2}.*already up to date$/),
    ]);
    expect(lines.filter((l) => l.includes("no-such-asset:"))).toEqual([
      expect.stringMatching(/^asset 3\/3 no-such-asset: .*not_found/),
    ]);
  });

  it("--force after file_exists: the kept bytes complete the file, with no 0 B/s rate", async () => {
    const dir = tempDir();
    const { writeFileSync } = await import("node:fs");
    writeFileSync(join(dir, "sci-fi-props.zip"), "not the served bytes");
    const args = ["pack", "get", "sci-fi-props", "-o", `${dir}/`];
    const refused = await runCli(args, { env: shared.env() });
    expect(refused.code).toBe(8);
    const r = await runCli([...args, "--force"], { env: shared.env() });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain("0 B/s");
    expect(r.stderr).toMatch(
      /sci-fi-props\.zip {2}\S+ \S+ {2}completed from the bytes already saved/,
    );
  });
});
