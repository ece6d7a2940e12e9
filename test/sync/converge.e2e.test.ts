import {
  chmodSync,
  closeSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Faults, MockService } from "../../src/mock-server/types.js";
import { partialPaths } from "../../src/outdir/partial.js";
import { runCli } from "../helpers/cli.js";
import { type SyncDoc, startSyncMock } from "../helpers/sync.js";
import {
  type ConvergeCtx,
  downloadRequests,
  sha256Of,
  snapshot,
  stateDirProblems,
} from "./converge-helpers.js";

/**
 * Convergence (cli-contract "packs sync", "Downloads"): from each starting state of DIR, one
 * `packs sync` ends with exactly the owned packs, byte-identical, nothing outside DIR changed,
 * `.svc-dl/` private (0700, files 0600, no links); `verify` then passes; a second sync makes no
 * download request. Real HTTP against the mock service, under umask 000 and 022.
 */

/** One starting state of DIR. */
interface Row {
  name: string;
  /** Start from a copy of a directory synced before (else empty). */
  complete?: boolean;
  /** Changes DIR (and the outside tree) before the run. */
  prepare?: (c: ConvergeCtx) => void;
  /** Extra `packs sync` arguments. */
  args?: string[];
  /** Mock faults for both runs (e.g. colliding Content-Disposition names). */
  faults?: Faults;
  /** The final file name of each slug when not the server's name. */
  names?: (c: ConvergeCtx) => Record<string, string>;
  /** Slugs that must fail with `file_exists` (exit 1); their entry in DIR stays as prepared. */
  failed?: (c: ConvergeCtx) => string[];
  /** Entries of DIR (besides the packs) that must stay exactly as prepared. */
  keep?: string[];
  /** Expected status of some slugs in the first run. */
  statuses?: (c: ConvergeCtx) => Record<string, string>;
  /** The first run makes no download request either. */
  noRequests?: boolean;
}

const first = (c: ConvergeCtx): string => c.owned[0] ?? "";
const second = (c: ConvergeCtx): string => c.owned[1] ?? "";
const servedName = (c: ConvergeCtx, slug: string): string => c.served.get(slug)?.filename ?? "";

interface StateDoc {
  version: 1;
  items: Record<string, { slug: string; etag: string; size: number; file: string }>;
}
const readStateDoc = (dir: string): StateDoc =>
  JSON.parse(readFileSync(join(dir, ".svc-dl", "state.json"), "utf8")) as StateDoc;
const writeStateDoc = (dir: string, doc: StateDoc): void =>
  writeFileSync(join(dir, ".svc-dl", "state.json"), JSON.stringify(doc));

/** Removes the first pack's file and record, leaving half its bytes as resumable partial data. */
function plantPartial(c: ConvergeCtx, meta: Record<string, unknown> = {}): void {
  const slug = first(c);
  const name = servedName(c, slug);
  const state = readStateDoc(c.dir);
  const rec = state.items[name];
  const bytes = readFileSync(join(c.dir, name));
  rmSync(join(c.dir, name));
  delete state.items[name];
  writeStateDoc(c.dir, state);
  const paths = partialPaths(c.dir, { kind: "pack", slug, edition: "standard" });
  writeFileSync(paths.data, bytes.subarray(0, Math.floor(bytes.length / 2)));
  writeFileSync(
    paths.meta,
    JSON.stringify({
      version: 1,
      kind: "pack",
      slug,
      edition: "standard",
      etag: rec?.etag,
      total: bytes.length,
      file: name,
      started_at: new Date().toISOString(),
      ...meta,
    }),
  );
}

const victim = (c: ConvergeCtx): string => join(c.outside, "victim.txt");

const ROWS: Row[] = [
  { name: "empty" },
  {
    name: "partial data from an interrupted run",
    complete: true,
    prepare: (c) => plantPartial(c),
    statuses: (c) => ({ [first(c)]: "resumed" }),
  },
  { name: "complete", complete: true, noRequests: true },
  {
    name: "restored from a backup without .svc-dl/",
    complete: true,
    prepare: (c) => rmSync(join(c.dir, ".svc-dl"), { recursive: true }),
    statuses: (c) => Object.fromEntries(c.owned.map((s) => [s, "adopted"])),
  },
  {
    name: "a flipped byte",
    complete: true,
    prepare: (c) => flipByte(join(c.dir, servedName(c, first(c))), false),
    statuses: (c) => ({ [first(c)]: "repaired" }),
  },
  {
    name: "a flipped byte with size and mtime kept (--checksum)",
    complete: true,
    args: ["--checksum"],
    prepare: (c) => flipByte(join(c.dir, servedName(c, first(c))), true),
    statuses: (c) => ({ [first(c)]: "repaired" }),
  },
  {
    name: "a deleted file",
    complete: true,
    prepare: (c) => rmSync(join(c.dir, servedName(c, second(c)))),
    statuses: (c) => ({ [second(c)]: "downloaded" }),
  },
  {
    name: "a renamed file",
    complete: true,
    prepare: (c) => renameSync(join(c.dir, servedName(c, first(c))), join(c.dir, "renamed.zip")),
    keep: ["renamed.zip"],
    statuses: (c) => ({ [first(c)]: "downloaded" }),
  },
  {
    name: "colliding server names (every pack served as bundle.zip)",
    faults: { contentDisposition: 'attachment; filename="bundle.zip"' },
    names: (c) =>
      Object.fromEntries(c.owned.map((s, i) => [s, i === 0 ? "bundle.zip" : `${s}.zip`])),
  },
  {
    name: "planted .part.json naming ../",
    complete: true,
    prepare: (c) => plantPartial(c, { file: "../outside/victim.txt" }),
    statuses: (c) => ({ [first(c)]: "downloaded" }),
  },
  {
    name: "planted .part.json naming an absolute path",
    complete: true,
    prepare: (c) => plantPartial(c, { file: victim(c) }),
    statuses: (c) => ({ [first(c)]: "downloaded" }),
  },
  {
    name: "planted state.json records naming outside paths",
    complete: true,
    prepare: (c) => {
      const state = readStateDoc(c.dir);
      const template = Object.values(state.items)[0];
      for (const file of ["../outside/victim.txt", victim(c), "..", ".svc-dl"]) {
        state.items[file] = { ...(template as StateDoc["items"][string]), file };
      }
      writeStateDoc(c.dir, state);
    },
    noRequests: true,
  },
  {
    name: "a symlink at state.json",
    complete: true,
    prepare: (c) => {
      writeFileSync(victim(c), readFileSync(join(c.dir, ".svc-dl", "state.json")));
      rmSync(join(c.dir, ".svc-dl", "state.json"));
      symlinkSync(victim(c), join(c.dir, ".svc-dl", "state.json"));
    },
    statuses: (c) => Object.fromEntries(c.owned.map((s) => [s, "adopted"])),
  },
  {
    name: "a symlink at lock-owner.json",
    complete: true,
    prepare: (c) => symlinkSync(victim(c), join(c.dir, ".svc-dl", "lock-owner.json")),
    noRequests: true,
  },
  {
    name: "symlinks at the .part and .part.json files",
    complete: true,
    prepare: (c) => {
      plantPartial(c);
      const paths = partialPaths(c.dir, { kind: "pack", slug: first(c), edition: "standard" });
      writeFileSync(join(c.outside, "part-meta.json"), readFileSync(paths.meta));
      for (const p of [paths.data, paths.meta]) rmSync(p);
      symlinkSync(victim(c), paths.data);
      symlinkSync(join(c.outside, "part-meta.json"), paths.meta);
    },
    statuses: (c) => ({ [first(c)]: "downloaded" }),
  },
  {
    name: "a symlink in place of a recorded file",
    complete: true,
    prepare: (c) => {
      const path = join(c.dir, servedName(c, first(c)));
      rmSync(path);
      symlinkSync(victim(c), path);
    },
    statuses: (c) => ({ [first(c)]: "repaired" }),
  },
  {
    name: "a symlink at an unrecorded destination",
    prepare: (c) => symlinkSync(victim(c), join(c.dir, servedName(c, first(c)))),
    failed: (c) => [first(c)],
  },
  {
    name: "a foreign file at a destination",
    prepare: (c) => writeFileSync(join(c.dir, servedName(c, first(c))), "not the pack\n"),
    failed: (c) => [first(c)],
  },
];

/** Changes one byte in the middle of a file; with `keepTimes` its mtime is set back. */
function flipByte(path: string, keepTimes: boolean): void {
  const before = statSync(path);
  const bytes = readFileSync(path);
  const at = Math.floor(bytes.length / 2);
  const fd = openSync(path, "r+");
  writeSync(fd, Buffer.from([(bytes[at] ?? 0) ^ 0xff]), 0, 1, at);
  closeSync(fd);
  if (keepTimes) utimesSync(path, before.atime, before.mtime);
}

let mock: MockService;
let env: Record<string, string>;
let owned: string[];
const served = new Map<string, { filename: string; size: number; sha256: string }>();

beforeAll(async () => {
  ({ mock, env, owned } = await startSyncMock(24 * 1024));
  for (const slug of owned) {
    const info = await mock.fileInfo({ kind: "pack", slug });
    served.set(slug, { filename: info.filename, size: info.size, sha256: info.sha256 });
  }
});
afterAll(async () => {
  await mock.close();
});

async function sync(dir: string, args: string[]): Promise<{ code: number | null; doc: SyncDoc }> {
  const r = await runCli(["packs", "sync", dir, "--json", ...args], { env });
  return { code: r.code, doc: JSON.parse(r.stdout || "null") as SyncDoc };
}

for (const umask of [0o000, 0o022]) {
  describe(`packs sync converges (umask ${umask.toString(8).padStart(3, "0")})`, () => {
    let previous = 0;
    let golden = "";
    beforeAll(async () => {
      previous = process.umask(umask);
      golden = join(mkdtempSync(join(tmpdir(), "svc-dl-golden-")), "dl");
      mock.set({ faults: {} });
      const r = await sync(golden, []);
      expect(r.code).toBe(0);
    });
    afterAll(() => {
      process.umask(previous);
    });

    for (const row of ROWS) {
      it(row.name, async () => {
        const root = mkdtempSync(join(tmpdir(), "svc-dl-converge-"));
        const c: ConvergeCtx = {
          dir: join(root, "dl"),
          outside: join(root, "outside"),
          golden,
          owned,
          served,
        };
        mkdirSync(c.outside);
        writeFileSync(victim(c), "must never change\n", { mode: 0o644 });
        if (row.complete) {
          cpSync(golden, c.dir, { recursive: true, preserveTimestamps: true });
          // Node 22+ cpSync creates folders with the umask's mode; a restore keeps the modes.
          chmodSync(join(c.dir, ".svc-dl"), 0o700);
        } else mkdirSync(c.dir);
        row.prepare?.(c);
        const outsideBefore = snapshot(c.outside);
        const failed = row.failed?.(c) ?? [];
        const names = row.names?.(c) ?? {};
        const nameOf = (slug: string): string => names[slug] ?? servedName(c, slug);
        const kept = Object.fromEntries(
          Object.entries(snapshot(c.dir, true)).filter(
            ([k]) => row.keep?.includes(k) || failed.some((s) => nameOf(s) === k),
          ),
        );
        mock.set({ faults: row.faults ?? {} });
        const expectedCode = failed.length > 0 ? 1 : 0;

        mock.clearLog();
        const run1 = await sync(c.dir, row.args ?? []);
        expect(run1.code, JSON.stringify(run1.doc)).toBe(expectedCode);
        if (row.noRequests) expect(downloadRequests(mock)).toEqual([]);
        const bySlug = new Map(run1.doc.items.map((i) => [i.slug, i]));
        for (const [slug, status] of Object.entries(row.statuses?.(c) ?? {})) {
          expect(bySlug.get(slug)?.status, slug).toBe(status);
        }
        for (const slug of failed) {
          expect(bySlug.get(slug)?.error?.code).toBe("file_exists");
        }

        // Exactly the owned packs (byte-identical), the kept entries, and .svc-dl/.
        const after = snapshot(c.dir, true);
        const expected: Record<string, string> = { ...kept };
        for (const slug of owned) {
          if (failed.includes(slug)) continue;
          const info = served.get(slug);
          expected[nameOf(slug)] = `file ${(0o666 & ~umask).toString(8)} ${info?.sha256}`;
        }
        expect(after).toEqual(expected);
        expect(snapshot(c.outside)).toEqual(outsideBefore);
        expect(stateDirProblems(c.dir)).toEqual([]);

        const verify = await runCli(["verify", c.dir, "--json"], { env });
        expect(verify.code, verify.stderr).toBe(0);
        const verified = JSON.parse(verify.stdout) as { items: { path: string; status: string }[] };
        expect(verified.items.map((i) => i.status).every((s) => s === "ok")).toBe(true);
        expect(verified.items.map((i) => i.path).sort()).toEqual(
          owned
            .filter((s) => !failed.includes(s))
            .map((s) => join(c.dir, nameOf(s)))
            .sort(),
        );

        mock.clearLog();
        const run2 = await sync(c.dir, []);
        expect(run2.code).toBe(expectedCode);
        const again = downloadRequests(mock).filter(
          (e) => !failed.some((s) => e.url.includes(`/${s}/`)),
        );
        expect(again).toEqual([]);
        expect(snapshot(c.dir, true)).toEqual(after);
        expect(snapshot(c.outside)).toEqual(outsideBefore);
        for (const slug of owned) {
          if (!failed.includes(slug))
            expect(sha256Of(join(c.dir, nameOf(slug)))).toBe(served.get(slug)?.sha256);
        }
      });
    }
  });
}
