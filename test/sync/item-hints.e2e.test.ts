import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { failedItemsHint } from "../../src/run/failure.js";
import { runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/download.js";
import { install, makeProject } from "../helpers/install.js";
import { useMockService } from "../helpers/mock.js";

/**
 * Every failed item of a run over several items carries its own next step (cli-contract "JSON
 * documents", "Operating unattended"; spec "Errors"): `packs sync`, `install`, several-slug
 * `pack get` and `verify --repair` show it under the item's line and in the item's `error`
 * (`--json`, `--report`); the run's closing hint is theirs when they share one.
 */

const shared = useMockService({
  packSize: 32 * 1024,
  assetSize: 8 * 1024,
  limits: { download: { quota: 1000, windowSeconds: 60 } },
});

afterEach(() => {
  shared.mock.set({ orders: { ord_1001: { paid: true } } });
});

/** The table's not_entitled hint for a pack the listing lacks (or not known to be listed). */
const NOT_ENTITLED =
  "This pack is not among the account's purchases; `svc-dl packs list` shows the packs you own (a pack bought with an order that is not paid is listed there but cannot be downloaded: `svc-dl api orders` shows each order's payment status).";
/** The table's not_entitled hint for a pack the listing has: its order is not paid. */
const UNPAID =
  "`svc-dl packs list` lists this pack, but the service refuses its download: the order it was bought with is not paid (an open refund or dispute), and new downloads stay unavailable until it is. `svc-dl api orders` shows each order's payment status; settle the order on the service's site or contact support with the request id.";

interface ItemError {
  code: string;
  hint: string | null;
}
interface Doc {
  items: { slug?: string; path?: string; status: string; error?: ItemError | null }[];
}

/** The stderr lines that follow the first line containing `marker` (time stamps removed). */
function lineAfter(stderr: string, marker: string): string | undefined {
  const lines = stderr.split("\n").map((l) => l.replace(/^\d\d:\d\d:\d\d /, ""));
  const at = lines.findIndex((l) => l.includes(marker));
  return at < 0 ? undefined : lines[at + 1];
}

/** The `--json` error line of stderr. */
function errorLine(stderr: string): { code: string; hint: string | null } {
  const line = stderr.split("\n").find((l) => l.startsWith('{"error"'));
  return (JSON.parse(line ?? "{}") as { error: { code: string; hint: string | null } }).error;
}

describe("packs sync: each failed item shows its own hint", () => {
  it("under its failed: line, in --json and in --report; the closing hint is the shared one", async () => {
    // ord_1001 unpaid: its packs stay listed, their downloads answer 403 not_entitled
    shared.mock.set({ orders: { ord_1001: { paid: false } } });
    const human = await runCli(["packs", "sync", tempDir()], { env: shared.env() });
    expect(human.code).toBe(1);
    expect(lineAfter(human.stderr, "failed: sci-fi-props (standard)")).toBe(`  hint: ${UNPAID}`);
    expect(human.stderr).not.toContain("Fix the cause of each failure");

    const dir = tempDir();
    const report = join(tempDir(), "report.json");
    const r = await runCli(["packs", "sync", dir, "--json", "--report", report], {
      env: shared.env(),
    });
    expect(r.code).toBe(1);
    for (const doc of [JSON.parse(r.stdout), JSON.parse(readFileSync(report, "utf8"))] as Doc[]) {
      const failed = doc.items.filter((i) => i.status === "failed");
      expect(failed.map((i) => i.slug).sort()).toEqual(["low-poly-forest", "sci-fi-props"]);
      for (const i of failed) expect(i.error).toMatchObject({ code: "not_entitled", hint: UNPAID });
      const ok = doc.items.find((i) => i.status === "downloaded");
      expect(ok?.error).toBeNull();
    }
    expect(errorLine(r.stderr)).toEqual(
      expect.objectContaining({ code: "sync_incomplete", hint: UNPAID }),
    );
  });
});

describe("install: each failed item shows its own hint", () => {
  it("a pack not owned and a file in the way, each with the hint install can follow", async () => {
    const p = makeProject({ dir: "out", packs: ["space-station"], assets: ["free-sample-cube"] });
    mkdirSync(join(p.root, "out"));
    writeFileSync(join(p.root, "out", "free-sample-cube.glb"), "my own file");
    const r = await install(shared.mock, p, ["--no-cache"]);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as Doc;
    const [pack, asset] = doc.items;
    expect(pack?.error).toMatchObject({ code: "not_entitled", hint: NOT_ENTITLED });
    expect(asset?.error?.code).toBe("file_exists");
    // rendered for install, which has neither --force nor -o
    expect(asset?.error?.hint).toBe(
      "Move the file away (a file identical to the served one is adopted), then run the same command again.",
    );
    // two different hints: the closing one points at them, naming the count
    const closing = errorLine(r.stderr);
    expect(closing.code).toBe("install_incomplete");
    expect(closing.hint).toMatch(/^2 items failed; follow each failed item's hint/);

    const human = await runCli(["install", "--no-cache"], {
      cwd: p.root,
      env: { ...shared.env(), SVC_DL_CACHE_DIR: p.cache },
    });
    expect(human.code).toBe(1);
    expect(lineAfter(human.stderr, "pack space-station (standard): failed")).toBe(
      `  hint: ${NOT_ENTITLED}`,
    );
    expect(lineAfter(human.stderr, "asset free-sample-cube: failed")).toBe(
      `  hint: ${asset?.error?.hint}`,
    );
  });
});

describe("install: an asset's hint names the assets' list", () => {
  it("an asset of a pack not owned points at `svc-dl assets list`, a pack at `packs list`", async () => {
    const p = makeProject({ dir: "out", packs: ["space-station"], assets: ["station-airlock"] });
    const r = await install(shared.mock, p, ["--no-cache"]);
    expect(r.code).toBe(1);
    const [pack, asset] = (JSON.parse(r.stdout) as Doc).items;
    expect(pack?.error).toMatchObject({ code: "not_entitled", hint: NOT_ENTITLED });
    expect(asset?.error?.code).toBe("not_entitled");
    expect(asset?.error?.hint).toContain("`svc-dl assets list` shows the assets you can download");
  });
});

describe("pack get with several slugs: each failed item shows its own hint", () => {
  it("rendered for pack get (its --force and -o), under the item's line and in --json", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "sci-fi-props.zip"), "my own file");
    const args = ["pack", "get", "desert-rocks", "space-station", "sci-fi-props", "-o", `${dir}/`];
    const r = await runCli([...args, "--json"], { env: shared.env() });
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as Doc;
    const bySlug = new Map(doc.items.map((i) => [i.slug, i.error]));
    expect(bySlug.get("space-station")).toMatchObject({ code: "not_entitled", hint: NOT_ENTITLED });
    const exists = bySlug.get("sci-fi-props");
    expect(exists?.code).toBe("file_exists");
    expect(exists?.hint).toContain("use --force to overwrite it");
    expect(exists?.hint).toContain("choose another name with -o");
    expect(errorLine(r.stderr).hint).toMatch(/^2 items failed; /);

    const human = await runCli([...args, "--quiet"], { env: shared.env() });
    expect(human.code).toBe(1);
    expect(lineAfter(human.stderr, "space-station: ")).toBe(`  hint: ${NOT_ENTITLED}`);
    expect(lineAfter(human.stderr, "sci-fi-props: ")).toBe(`  hint: ${exists?.hint}`);
  });
});

describe("verify --repair: an item that cannot be repaired shows its own hint", () => {
  it("under its warning and in the --json item's error", async () => {
    const dir = tempDir();
    const got = await runCli(["pack", "get", "sci-fi-props", "-o", `${dir}/`], {
      env: shared.env(),
    });
    expect(got.code).toBe(0);
    const file = join(dir, "sci-fi-props.zip");
    writeFileSync(file, "changed");
    shared.mock.set({ orders: { ord_1001: { paid: false } } });
    const r = await runCli(["verify", dir, "--repair", "--json"], { env: shared.env() });
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as Doc;
    expect(doc.items[0]).toMatchObject({
      path: file,
      status: "changed",
      error: { code: "not_entitled", hint: NOT_ENTITLED },
    });

    const human = await runCli(["verify", dir, "--repair"], { env: shared.env() });
    expect(human.code).toBe(1);
    expect(lineAfter(human.stderr, `cannot repair ${file}`)).toBe(`  hint: ${NOT_ENTITLED}`);
  });
});

describe("failedItemsHint", () => {
  it("the one hint the failed items share, else the count and a pointer to each", () => {
    expect(failedItemsHint("sync_incomplete", [{ hint: "a" }, { hint: "a" }])).toBe("a");
    expect(failedItemsHint("get_incomplete", [{ hint: "a" }, { hint: "b" }])).toBe(
      "2 items failed; follow each failed item's hint, then run the same command again: finished items are not fetched again.",
    );
    // an item with no hint of its own: the pointer, never an empty hint
    expect(failedItemsHint("sync_incomplete", [{ hint: null }])).toMatch(/^1 item failed; /);
  });
});
