import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MockService } from "../../src/mock-server/types.js";
import { runCli } from "../helpers/cli.js";
import { sha256Of, tempDir } from "../helpers/download.js";
import { type SyncDoc, startSyncMock } from "../helpers/sync.js";

/**
 * cli-contract "Downloads", "verify", "packs sync": an untrusted `.svc-dl/` is refused; a
 * directory that cannot be created ends at once; one name per item; adoption; repair through
 * `verify --repair`; records per item and per path; a truthful dry run.
 */

let mock: MockService;
let env: Record<string, string>;
let owned: string[];

beforeAll(async () => {
  ({ mock, env, owned } = await startSyncMock(16 * 1024));
});
afterAll(async () => {
  await mock.close();
});

const apiDownloads = () => mock.requests.filter((e) => /\/download(\?|$)/.test(e.url));
const errorOf = (stderr: string): { code: string; message: string } =>
  (
    JSON.parse(stderr.trim().split("\n").pop() ?? "{}") as {
      error: { code: string; message: string };
    }
  ).error;
const slug = (i: number): string => owned[i] ?? "";
const served = async (s: string) => mock.fileInfo({ kind: "pack", slug: s });

describe("an untrusted .svc-dl is refused (unsafe_state_dir, exit 8)", () => {
  const cases: { name: string; make: (dir: string, outside: string) => void }[] = [
    { name: "writable by others", make: (dir) => mkdirAt(dir, 0o777) },
    { name: "writable by its group", make: (dir) => mkdirAt(dir, 0o770) },
    {
      name: "a symlink to a directory elsewhere",
      make: (dir, outside) => symlinkSync(outside, join(dir, ".svc-dl")),
    },
    {
      name: "owned by another user",
      make: (dir) => {
        mkdirAt(dir, 0o700);
        if (process.geteuid?.() === 0) chownSync(join(dir, ".svc-dl"), 65534, 65534);
        else chmodSync(join(dir, ".svc-dl"), 0o777); // only root can give it away
      },
    },
  ];
  function mkdirAt(dir: string, mode: number): void {
    mkdirSync(join(dir, ".svc-dl"));
    chmodSync(join(dir, ".svc-dl"), mode);
  }

  for (const c of cases) {
    it(c.name, async () => {
      const dir = tempDir();
      const outside = tempDir();
      c.make(dir, outside);
      mock.clearLog();
      for (const args of [
        ["pack", "get", slug(0), "-o", `${dir}/`],
        ["packs", "sync", dir],
        ["verify", dir],
      ]) {
        const r = await runCli([...args, "--json"], { env });
        expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(8);
        expect(errorOf(r.stderr).code).toBe("unsafe_state_dir");
      }
      expect(apiDownloads()).toEqual([]);
      expect(existsSync(join(outside, "state.json"))).toBe(false);
      expect(existsSync(join(outside, "lock"))).toBe(false);
    });
  }
});

describe("no spin on a directory that cannot be created", () => {
  it("-o /proc/… and packs sync /proc/… exit 8 within a second (plus start-up)", async () => {
    // Start-up time of a run that loads the same modules and stops before any work (a usage
    // error: -o - with --json), on this possibly loaded machine.
    const t0 = Date.now();
    expect((await runCli(["pack", "get", slug(0), "-o", "-", "--json"], { env })).code).toBe(2);
    const startup = Date.now() - t0;
    for (const args of [
      ["pack", "get", slug(0), "-o", "/proc/"],
      ["pack", "get", slug(0), "-o", "/proc/svc-dl-test/x/"],
      ["packs", "sync", "/proc/svc-dl-test"],
    ]) {
      const started = Date.now();
      // A spinning run would be killed at the timeout (code null), never exit 8.
      const r = await runCli([...args, "--json"], { env, timeoutMs: 20_000 });
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(8);
      expect(Date.now() - started).toBeLessThan(startup * 1.5 + 1000);
    }
  });
});

describe("one name, one item; adoption", () => {
  it("two packs the server names alike: the second gets its fallback name, the first is untouched", async () => {
    const dir = tempDir();
    mock.set({ faults: { contentDisposition: 'attachment; filename="bundle.zip"' } });
    try {
      const a = await runCli(["pack", "get", slug(0), "--json"], { env, cwd: dir });
      expect(a.code).toBe(0);
      const before = sha256Of(join(dir, "bundle.zip"));
      const b = await runCli(["pack", "get", slug(1), "--json"], { env, cwd: dir });
      expect(b.code, b.stderr).toBe(0);
      expect(JSON.parse(b.stdout).path).toBe(join(dir, `${slug(1)}.zip`));
      expect(sha256Of(join(dir, "bundle.zip"))).toBe(before);
      expect(before).toBe((await served(slug(0))).sha256);
      expect(sha256Of(join(dir, `${slug(1)}.zip`))).toBe((await served(slug(1))).sha256);
    } finally {
      mock.set({ faults: {} });
    }
  });

  it("an unrecorded file: identical → adopted (untouched); different → file_exists, --force replaces", async () => {
    const info = await served(slug(0));
    const src = tempDir();
    expect((await runCli(["pack", "get", slug(0)], { env, cwd: src })).code).toBe(0);
    const dir = tempDir();
    writeFileSync(join(dir, info.filename), readFileSync(join(src, info.filename)));
    const inode = statSync(join(dir, info.filename)).ino;
    const adopted = await runCli(["pack", "get", slug(0), "--json"], { env, cwd: dir });
    expect(adopted.code, adopted.stderr).toBe(0);
    expect(JSON.parse(adopted.stdout).status).toBe("adopted");
    expect(statSync(join(dir, info.filename)).ino).toBe(inode);
    const again = await runCli(["pack", "get", slug(0), "--json"], { env, cwd: dir });
    expect(JSON.parse(again.stdout).status).toBe("up-to-date");

    const other = tempDir();
    writeFileSync(join(other, info.filename), "my own notes\n");
    const refused = await runCli(["pack", "get", slug(0), "--json"], { env, cwd: other });
    expect(refused.code).toBe(8);
    expect(errorOf(refused.stderr).code).toBe("file_exists");
    expect(readFileSync(join(other, info.filename), "utf8")).toBe("my own notes\n");
    const forced = await runCli(["pack", "get", slug(0), "--force"], { env, cwd: other });
    expect(forced.code).toBe(0);
    expect(sha256Of(join(other, info.filename))).toBe(info.sha256);
  });
});

describe("records per item and per path; verify and verify --repair", () => {
  it("pack get x -o other.zip, then pack get x fetches x's own file and drops the stale record; a lost file is restored by verify --repair", async () => {
    const dir = tempDir();
    const info = await served(slug(0));
    expect(
      (await runCli(["pack", "get", slug(0), "-o", "other.zip"], { env, cwd: dir })).code,
    ).toBe(0);
    const own = await runCli(["pack", "get", slug(0), "--json"], { env, cwd: dir });
    expect(own.code).toBe(0);
    expect(JSON.parse(own.stdout)).toMatchObject({
      path: join(dir, info.filename),
      status: "downloaded",
    });

    // One item, one record: other.zip is the user's own copy now, and deleting it is no loss.
    rmSync(join(dir, "other.zip"));
    const plain = await runCli(["verify", dir], { env });
    expect(plain.code, plain.stdout).toBe(0);
    expect(plain.stdout).not.toContain("other.zip");

    rmSync(join(dir, info.filename));
    const lost = await runCli(["verify", dir], { env });
    expect(lost.code).toBe(1);
    expect(lost.stdout).toContain(`missing  ${join(dir, info.filename)}`);
    expect(lost.stderr).toContain("svc-dl verify --repair");

    const repaired = await runCli(["verify", dir, "--repair", "--json"], { env });
    expect(repaired.code, repaired.stderr).toBe(0);
    const doc = JSON.parse(repaired.stdout) as { items: { path: string; status: string }[] };
    expect(doc.items.find((i) => i.path.endsWith(info.filename))?.status).toBe("repaired");
    expect(sha256Of(join(dir, info.filename))).toBe(info.sha256);
    expect((await runCli(["verify", dir], { env })).code).toBe(0);
  });

  it("a changed file: verify --repair repairs it, and so does packs sync (status repaired)", async () => {
    const dir = tempDir();
    expect((await runCli(["packs", "sync", dir], { env })).code).toBe(0);
    const info = await served(slug(0));
    const path = join(dir, info.filename);
    const bytes = readFileSync(path);
    bytes[100] = (bytes[100] ?? 0) ^ 1;
    writeFileSync(path, bytes);
    const v = await runCli(["verify", dir, "--repair", "--json"], { env });
    expect(v.code, v.stderr).toBe(0);
    expect(sha256Of(path)).toBe(info.sha256);

    renameSync(path, `${path}.bak`);
    writeFileSync(path, bytes);
    const sync = await runCli(["packs", "sync", dir, "--json"], { env });
    const item = (JSON.parse(sync.stdout) as SyncDoc).items.find((i) => i.slug === slug(0));
    expect(item).toMatchObject({ status: "repaired", reason: "changed locally" });
    expect(sha256Of(path)).toBe(info.sha256);
  });
});

describe("packs sync --dry-run tells the truth", () => {
  it("--edition all on a fresh directory: authoring editions 'if the pack has one', not counted", async () => {
    const dir = tempDir();
    mock.clearLog();
    const r = await runCli(["packs", "sync", dir, "--edition", "all", "--dry-run", "--json"], {
      env,
    });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as SyncDoc;
    const standard = doc.items.filter((i) => i.edition === "standard");
    expect(standard.map((i) => [i.status, i.reason])).toEqual(
      owned.map(() => ["would-download", "new"]),
    );
    for (const i of doc.items.filter((x) => x.edition === "authoring")) {
      expect(["unavailable", "would-download"]).toContain(i.status);
      if (i.status === "would-download") {
        expect(i.reason).toBe("authoring edition, if the pack has one");
      }
    }
    expect(apiDownloads()).toEqual([]);
    const human = await runCli(["packs", "sync", dir, "--edition", "all", "--dry-run"], { env });
    expect(human.stderr).toContain(`${owned.length} would be downloaded`);

    expect((await runCli(["packs", "sync", dir], { env })).code).toBe(0);
    const done = await runCli(["packs", "sync", dir, "--dry-run", "--json"], { env });
    const after = JSON.parse(done.stdout) as SyncDoc;
    expect(after.items.every((i) => i.status === "up-to-date")).toBe(true);
  });
});

describe("SIGINT while re-hashing", () => {
  it("verify of a huge recorded file stops at once with 130", async () => {
    const dir = tempDir();
    expect((await runCli(["pack", "get", slug(0)], { env, cwd: dir })).code).toBe(0);
    const statePath = join(dir, ".svc-dl", "state.json");
    const state = JSON.parse(readFileSync(statePath, "utf8")) as {
      items: Record<string, Record<string, unknown>>;
    };
    const template = Object.values(state.items)[0];
    const huge = 64 * 1024 ** 3; // sparse: no disk used, but minutes of hashing
    state.items["a-huge.zip"] = { ...template, file: "a-huge.zip", size: huge };
    writeFileSync(statePath, JSON.stringify(state));
    writeFileSync(join(dir, "a-huge.zip"), "");
    truncateSync(join(dir, "a-huge.zip"), huge);
    // Interrupted (as Ctrl-C would) 200 ms in: hashing 64 GiB would take far longer.
    const started = Date.now();
    const r = await runCli(["verify", dir], { timeoutMs: 200 });
    expect(r.code).toBe(130);
    expect(r.stderr).toContain("interrupted");
    expect(Date.now() - started).toBeLessThan(5000);
    rmSync(dir, { recursive: true, force: true });
  });
});
