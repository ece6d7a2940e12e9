import {
  appendFileSync,
  copyFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type * as z from "zod/mini";
import {
  ConfigListDocumentSchema,
  ConfigSetDocumentSchema,
  ConfigUnsetDocumentSchema,
  DoctorDocumentSchema,
  GetManyDocumentSchema,
  InstallDocumentSchema,
  SyncDocumentSchema,
  VerifyDocumentSchema,
} from "../src/documents.js";
import { type RunCliOptions, runCli } from "./helpers/cli.js";
import { type ManualClock, manualClock } from "./helpers/clock.js";
import { useMockService } from "./helpers/mock.js";

/**
 * The exported document schemas accept what the commands really print (cli-contract "JSON
 * documents", "Operating unattended"), in the states that add members: `--max-duration`
 * deferring items, `--prune`/`--dry-run`, a run stopped part-way (`complete: false`, `error`),
 * a failed item (its `error` with `hint`). Each row runs the command in-process against the
 * mock, parses stdout with the schema, and checks the row's state really showed up.
 */

/** Where the schema-coverage block of this file starts (its own text does not count). */
const GUARD = ["describe(", '"every document of src/documents.ts"'].join("");

const shared = useMockService({
  packSize: 8 * 1024,
  limits: { download: { quota: 1000, windowSeconds: 60 } },
});
const env = () => shared.env();
const tempDir = (): string => mkdtempSync(join(tmpdir(), "svc-dl-schemas-"));
const OWNED = ["desert-rocks", "low-poly-forest", "sci-fi-props"];

/** A clock that moves 25 s each time it is read: a 60 s `--max-duration` ends within a few reads. */
function ticking(): ManualClock {
  const base = manualClock(Date.UTC(2026, 0, 2));
  return {
    now: () => {
      base.advance(25_000);
      return base.now();
    },
    advance: base.advance,
  };
}

/** A synced DIR (every owned pack). */
async function synced(): Promise<string> {
  const dir = tempDir();
  const r = await runCli(["packs", "sync", dir], { env: env() });
  expect(r.code, r.stderr).toBe(0);
  return dir;
}

/**
 * A synced DIR whose state also records `gone-1.zip` (intact) and `gone-2.zip` (bytes changed
 * since) for packs the account does not own.
 */
async function syncedWithGone(): Promise<string> {
  const dir = await synced();
  const statePath = join(dir, ".svc-dl", "state.json");
  const state = JSON.parse(readFileSync(statePath, "utf8")) as {
    items: Record<string, Record<string, unknown>>;
  };
  const [name, rec] = Object.entries(state.items)[0] ?? [];
  if (!name || !rec) throw new Error("no record");
  for (const n of [1, 2]) {
    const file = `gone-${n}.zip`;
    copyFileSync(join(dir, name), join(dir, file));
    state.items[file] = { ...rec, slug: `gone-${n}`, file, mtime_ms: undefined };
  }
  appendFileSync(join(dir, "gone-2.zip"), "changed");
  writeFileSync(statePath, JSON.stringify(state));
  return dir;
}

/** A manifest declaring the owned packs and one asset; returns its path. */
function manifest(): string {
  const path = join(tempDir(), "svc-dl.json");
  writeFileSync(
    path,
    JSON.stringify({ dir: "assets", packs: OWNED, assets: ["free-sample-cube"] }),
  );
  return path;
}

/** Sets `state` on the mock for one run, restoring `after` whatever happens. */
async function withMock<T>(
  state: Parameters<typeof shared.mock.set>[0],
  after: Parameters<typeof shared.mock.set>[0],
  run: () => Promise<T>,
): Promise<T> {
  shared.mock.set(state);
  try {
    return await run();
  } finally {
    shared.mock.set(after);
  }
}

const UNPAID = { orders: { ord_1001: { paid: false } } };
const PAID = { orders: { ord_1001: { paid: true } } };
const TWO_DOWNLOADS = { limits: { download: { quota: 2, windowSeconds: 3600 } } };
const MANY_DOWNLOADS = { limits: { download: { quota: 1000, windowSeconds: 60 } } };

type Doc = Record<string, unknown> & { items?: Record<string, unknown>[] };

interface Row {
  name: string;
  schema: z.ZodMiniType;
  /** Prepares the row's directory or manifest and returns the command's argv. */
  argv: () => Promise<string[]>;
  /** Run options besides the mock's environment (a clock). */
  opts?: () => RunCliOptions;
  /** The mock's state for the run, and the state to restore after it. */
  mock?: [Parameters<typeof shared.mock.set>[0], Parameters<typeof shared.mock.set>[0]];
  /** The expected exit code (or codes). */
  code: number | number[];
  /** What the document must show for the row's state to have happened. */
  shows: (doc: Doc) => void;
}

const statuses = (doc: Doc) => (doc.items ?? []).map((i) => i.status);
const stopped = (code: string) => (doc: Doc) =>
  expect(doc).toMatchObject({ complete: false, error: { code } });
const hasFailedWithHint = (doc: Doc) => {
  const failed = (doc.items ?? []).find((i) => i.status === "failed");
  expect(failed?.error).toMatchObject({ hint: expect.any(String) });
};
const deadline = () => ({ clock: ticking() });

const ROWS: Row[] = [
  {
    name: "packs sync --max-duration: deferred items and summary.deferred",
    schema: SyncDocumentSchema,
    argv: async () => ["--max-duration", "60s", "packs", "sync", tempDir(), "--json"],
    opts: deadline,
    code: 10,
    shows: (doc) => {
      expect(statuses(doc)).toContain("deferred");
      stopped("deadline_reached")(doc);
    },
  },
  {
    name: "packs sync without --prune: not-owned and summary.not_owned",
    schema: SyncDocumentSchema,
    argv: async () => ["packs", "sync", await syncedWithGone(), "--json"],
    code: 0,
    shows: (doc) => expect(doc.summary).toMatchObject({ not_owned: 2 }),
  },
  {
    name: "packs sync --prune --dry-run: would-prune and kept-modified",
    schema: SyncDocumentSchema,
    argv: async () => ["packs", "sync", await syncedWithGone(), "--prune", "--dry-run", "--json"],
    code: 0,
    shows: (doc) => expect(doc.summary).toMatchObject({ would_prune: 1, kept_modified: 1 }),
  },
  {
    name: "packs sync --prune: pruned and kept-modified",
    schema: SyncDocumentSchema,
    argv: async () => ["packs", "sync", await syncedWithGone(), "--prune", "--json"],
    code: 0,
    shows: (doc) => expect(doc.summary).toMatchObject({ pruned: 1, kept_modified: 1 }),
  },
  {
    name: "packs sync stopped part-way (rate limit): complete false and the run's error",
    schema: SyncDocumentSchema,
    argv: async () => ["--max-wait", "0", "packs", "sync", tempDir(), "--json"],
    mock: [TWO_DOWNLOADS, MANY_DOWNLOADS],
    code: 6,
    shows: stopped("rate_limited"),
  },
  {
    name: "packs sync with failed items: each error with its hint",
    schema: SyncDocumentSchema,
    argv: async () => ["packs", "sync", tempDir(), "--json"],
    mock: [UNPAID, PAID],
    code: 1,
    shows: hasFailedWithHint,
  },
  {
    name: "install --max-duration: deferred items and summary.deferred",
    schema: InstallDocumentSchema,
    argv: async () => ["--max-duration", "60s", "install", "--manifest", manifest(), "--json"],
    opts: deadline,
    code: 10,
    shows: (doc) => {
      expect(statuses(doc)).toContain("deferred");
      stopped("deadline_reached")(doc);
    },
  },
  {
    name: "install with failed items: each error with its hint",
    schema: InstallDocumentSchema,
    argv: async () => ["install", "--manifest", manifest(), "--json"],
    mock: [UNPAID, PAID],
    code: 1,
    shows: hasFailedWithHint,
  },
  {
    name: "pack get a b c --max-duration: deferred items",
    schema: GetManyDocumentSchema,
    argv: async () => ["--max-duration", "60s", "pack", "get", ...OWNED, "-o", `${tempDir()}/`],
    opts: deadline,
    code: 10,
    shows: (doc) => {
      expect(statuses(doc)).toContain("deferred");
      stopped("deadline_reached")(doc);
    },
  },
  {
    name: "pack get with a failed item: its error with its hint",
    schema: GetManyDocumentSchema,
    argv: async () => ["pack", "get", "desert-rocks", "not-mine", "-o", `${tempDir()}/`],
    code: 1,
    shows: hasFailedWithHint,
  },
  {
    name: "pack get with one slug and --report: the several-slug document",
    schema: GetManyDocumentSchema,
    argv: async () => [
      "pack",
      "get",
      "desert-rocks",
      "-o",
      `${tempDir()}/`,
      "--report",
      join(tempDir(), "r.json"),
    ],
    code: 0,
    shows: (doc) => expect(doc).toMatchObject({ complete: true, summary: { downloaded: 1 } }),
  },
  {
    name: "verify --max-duration: deferred items",
    schema: VerifyDocumentSchema,
    argv: async () => ["--max-duration", "60s", "verify", await synced()],
    opts: () => ({ clock: ticking(), env: {} }),
    code: 10,
    shows: (doc) => {
      expect(statuses(doc)).toContain("deferred");
      stopped("deadline_reached")(doc);
    },
  },
  {
    name: "doctor DIR: every check",
    schema: DoctorDocumentSchema,
    argv: async () => ["doctor", await synced()],
    code: [0, 1],
    shows: (doc) => expect((doc.checks as unknown[]).length).toBeGreaterThan(3),
  },
];

/** Runs `argv` with `--json` (once) and returns the exit code and the parsed stdout. */
async function run(row: Row): Promise<{ code: number; doc: Doc; stderr: string }> {
  const argv = await row.argv();
  const args = argv.includes("--json") ? argv : [...argv, "--json"];
  const go = () => runCli(args, { env: env(), ...row.opts?.() });
  const r = row.mock ? await withMock(row.mock[0], row.mock[1], go) : await go();
  return { code: r.code, doc: JSON.parse(r.stdout) as Doc, stderr: r.stderr };
}

describe("the exported schemas accept what the commands print", () => {
  for (const row of ROWS) {
    it(row.name, async () => {
      const { code, doc, stderr } = await run(row);
      expect([row.code].flat(), stderr).toContain(code);
      row.shows(doc);
      const parsed = row.schema.safeParse(doc);
      expect(parsed.error?.issues ?? [], JSON.stringify(doc)).toEqual([]);
    });
  }

  it("config set, list and unset", async () => {
    const config = { SVC_DL_CONFIG_DIR: tempDir() };
    const set = await runCli(["config", "set", "base-url", "https://example.test", "--json"], {
      env: config,
    });
    expect(ConfigSetDocumentSchema.parse(JSON.parse(set.stdout)).key).toBe("base-url");
    const list = await runCli(["config", "list", "--json"], { env: config });
    const settings = ConfigListDocumentSchema.parse(JSON.parse(list.stdout)).settings;
    expect(settings["base-url"]).toBe("https://example.test");
    const unset = await runCli(["config", "unset", "base-url", "--json"], { env: config });
    expect(ConfigUnsetDocumentSchema.parse(JSON.parse(unset.stdout)).removed).toBe(true);
  });
});

describe("the --report of a run stopped before its first item matches the command's schema", () => {
  const BAD_KEY = { SVC_API_KEY: "svc_live_refusedrefusedrefused" };
  const cases: [string, z.ZodMiniType, (t: string) => string[], Record<string, string>, string][] =
    [
      [
        "packs sync, key refused",
        SyncDocumentSchema,
        (t) => ["packs", "sync", t],
        BAD_KEY,
        "invalid_api_key",
      ],
      [
        "install, key refused",
        InstallDocumentSchema,
        () => ["install", "--manifest", manifest()],
        BAD_KEY,
        "invalid_api_key",
      ],
      [
        "install, no manifest",
        InstallDocumentSchema,
        (t) => ["install", "--manifest", join(t, "none.json")],
        {},
        "manifest_missing",
      ],
      [
        "pack get a b, key refused",
        GetManyDocumentSchema,
        (t) => ["pack", "get", ...OWNED, "-o", `${t}/`],
        BAD_KEY,
        "invalid_api_key",
      ],
      [
        "asset get a b -o -",
        GetManyDocumentSchema,
        () => ["asset", "get", "free-sample-cube", "x", "-o", "-"],
        {},
        "usage_error",
      ],
      [
        "verify, no such DIR",
        VerifyDocumentSchema,
        (t) => ["verify", join(t, "nope")],
        {},
        "dir_not_found",
      ],
    ];
  for (const [name, schema, argv, extra, code] of cases) {
    it(name, async () => {
      const t = tempDir();
      const report = join(t, "report.json");
      const r = await runCli([...argv(t), "--report", report], { env: { ...env(), ...extra } });
      expect(r.code).not.toBe(0);
      const doc = JSON.parse(readFileSync(report, "utf8")) as Doc;
      expect(doc).toMatchObject({ complete: false, items: [], error: { code } });
      const parsed = schema.safeParse(doc);
      expect(parsed.error?.issues ?? [], JSON.stringify(doc)).toEqual([]);
    });
  }
});

describe("every document of src/documents.ts", () => {
  it("is parsed by a test that runs its command (a schema no output meets would be dead)", async () => {
    const documents = await import("../src/documents.js");
    const names = Object.keys(documents).filter((n) => /(Document|ErrorLine)Schema$/.test(n));
    expect(names.length).toBeGreaterThan(20);
    const root = fileURLToPath(new URL(".", import.meta.url));
    // every test file past its imports (this file up to this block)
    const texts = readdirSync(root, { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".test.ts"))
      .map((f) => readFileSync(join(root, f), "utf8").split(GUARD)[0] ?? "")
      .map((t) => t.replace(/^import[^;]*;/gm, ""));
    for (const name of names) {
      // in a `.parse(`/`.safeParse(` call, or a table of schemas
      const use = new RegExp(`\\b${name}(\\.(safe)?[pP]arse\\(|,)`);
      expect(
        texts.some((t) => use.test(t)),
        `${name} is parsed by no test`,
      ).toBe(true);
    }
  });
});
