import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/download.js";
import { useMockService } from "../helpers/mock.js";

/** `pack get a b c` / `asset get a b c` (cli-contract "pack get", "asset get", "JSON documents"). */

const shared = useMockService({
  packSize: 32 * 1024,
  assetSize: 8 * 1024,
  limits: { download: { quota: 1000, windowSeconds: 60 } },
});

interface ManyDoc {
  items: {
    kind: string;
    slug: string;
    edition: string | null;
    status: string;
    path?: string;
    error?: { code: string; request_id: string | null; http_status: number | null };
  }[];
  summary: { downloaded: number; up_to_date: number; failed: number };
}

const downloads = () =>
  shared.mock.requests.filter((e) => e.origin === "api" && e.url.includes("/download"));

describe("several slugs", () => {
  it("pack get a b fetches both into one directory with one --json document", async () => {
    const dir = tempDir();
    const r = await runCli(
      ["pack", "get", "desert-rocks", "low-poly-forest", "-o", `${dir}/`, "--json"],
      { env: shared.env() },
    );
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as ManyDoc;
    expect(doc.items.map((i) => [i.kind, i.slug, i.edition, i.status])).toEqual([
      ["pack", "desert-rocks", "standard", "downloaded"],
      ["pack", "low-poly-forest", "standard", "downloaded"],
    ]);
    expect(doc.summary).toEqual({ downloaded: 2, up_to_date: 0, failed: 0 });
    expect(readdirSync(dir).sort()).toEqual([".svc-dl", "desert-rocks.zip", "low-poly-forest.zip"]);
    // the record is listed once for the run, not once per slug
    expect(shared.mock.requests.filter((e) => /^\/api\/v1\/packs(\?|$)/.test(e.url)).length).toBe(
      1,
    );
  });

  it("an item failure is reported and the rest go on; exit 1 at the end", async () => {
    const dir = tempDir();
    const r = await runCli(
      ["pack", "get", "desert-rocks", "space-station", "sci-fi-props", "-o", dir, "--json"],
      { env: shared.env() },
    );
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as ManyDoc;
    expect(doc.items.map((i) => [i.slug, i.status])).toEqual([
      ["desert-rocks", "downloaded"],
      ["space-station", "failed"],
      ["sci-fi-props", "downloaded"],
    ]);
    const failed = doc.items[1];
    expect(failed).toMatchObject({ kind: "pack", edition: "standard", status: "failed" });
    expect(failed?.error?.code).toBe("not_entitled");
    expect(failed?.error?.http_status).toBe(403);
    expect(failed?.error?.request_id).toMatch(/^[A-Za-z0-9_-]{8,64}$/);
    expect(doc.summary).toEqual({ downloaded: 2, up_to_date: 0, failed: 1 });
    expect(existsSync(join(dir, "sci-fi-props.zip"))).toBe(true);
  });

  it("asset get a b c: one line per item, the paths on stdout, a summary", async () => {
    const dir = tempDir();
    const r = await runCli(
      ["asset", "get", "free-sample-cube", "no-such-asset", "village-well", "-o", `${dir}/`],
      { env: shared.env() },
    );
    expect(r.code).toBe(1);
    expect(r.stdout.trim().split("\n")).toEqual([
      join(dir, "free-sample-cube.glb"),
      join(dir, "village-well.glb"),
    ]);
    expect(r.stderr).toContain("asset 1/3  free-sample-cube.glb");
    expect(r.stderr).toContain("asset 3/3  village-well.glb");
    expect(r.stderr).toMatch(/no-such-asset: .*not_found/);
    expect(r.stderr).toContain("3 items: 2 downloaded, 0 up to date, 1 failed");
  });

  it("a second run reports up-to-date items", async () => {
    const dir = tempDir();
    const args = ["asset", "get", "free-sample-cube", "village-well", "-o", `${dir}/`, "--json"];
    await runCli(args, { env: shared.env() });
    const r = await runCli(args, { env: shared.env() });
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as ManyDoc).summary).toEqual({
      downloaded: 0,
      up_to_date: 2,
      failed: 0,
    });
  });

  it("an account-level failure stops at once", async () => {
    const dir = tempDir();
    const env = { ...shared.env(), SVC_API_KEY: shared.mock.keys.key_revoked ?? "" };
    const r = await runCli(["asset", "get", "free-sample-cube", "village-well", "-o", `${dir}/`], {
      env,
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("revoked_api_key");
    expect(downloads().length).toBe(1);
  });

  it("-o FILE or -o - with several slugs is a usage error, before any request", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "existing.txt"), "x");
    for (const output of [join(dir, "one.zip"), join(dir, "existing.txt"), "-"]) {
      const r = await runCli(["pack", "get", "desert-rocks", "low-poly-forest", "-o", output], {
        env: shared.env(),
      });
      expect(r.code).toBe(2);
    }
    expect(shared.mock.requests).toEqual([]);
    expect(readdirSync(dir)).toEqual(["existing.txt"]);
  });

  it("one slug keeps the single document", async () => {
    const dir = tempDir();
    const r = await runCli(["asset", "get", "free-sample-cube", "-o", `${dir}/`, "--json"], {
      env: shared.env(),
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      kind: "asset",
      slug: "free-sample-cube",
      status: "downloaded",
    });
  });
});
