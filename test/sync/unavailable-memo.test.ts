import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FileSystemError } from "../../src/errors/file-system-error.js";
import {
  readUnavailableMemo,
  UNAVAILABLE_FILE,
  writeUnavailableMemo,
} from "../../src/sync/unavailable-memo.js";

/**
 * `<dir>/.svc-dl/sync-unavailable.json`: packs the service said have no authoring edition
 * (cli-contract "packs sync": `file_unavailable` on an authoring edition is "none"; "Downloads":
 * everything under `.svc-dl/` is untrusted, created 0700/0600, never followed through a symlink).
 */

const tempDir = () => mkdtempSync(join(tmpdir(), "svc-dl-memo-"));
const stateDir = (dir: string) => join(dir, ".svc-dl");
const memoPath = (dir: string) => join(dir, ".svc-dl", UNAVAILABLE_FILE);

/** Writes `text` as the memo file, creating a private `.svc-dl/`. */
function plant(dir: string, text: string): void {
  mkdirSync(stateDir(dir), { mode: 0o700 });
  chmodSync(stateDir(dir), 0o700);
  writeFileSync(memoPath(dir), text, { mode: 0o600 });
}

const T1 = "2025-03-01T10:00:00.000Z";
const T2 = "2025-03-02T11:30:00.000Z";

describe("readUnavailableMemo", () => {
  it("is empty for a directory without .svc-dl, or without the memo", () => {
    const dir = tempDir();
    expect(readUnavailableMemo(dir).size).toBe(0);
    mkdirSync(stateDir(dir), { mode: 0o700 });
    expect(readUnavailableMemo(dir).size).toBe(0);
  });

  it("is empty for a directory that does not exist", () => {
    expect(readUnavailableMemo(join(tempDir(), "nope")).size).toBe(0);
  });

  it("reads the slugs and when each was learnt", () => {
    const dir = tempDir();
    plant(dir, JSON.stringify({ version: 1, authoring: { forest: T1, desert: T2 } }));
    expect(readUnavailableMemo(dir)).toEqual(
      new Map([
        ["forest", T1],
        ["desert", T2],
      ]),
    );
  });

  it.each<[string, string]>([
    ["not JSON", "{ version: 1, authoring"],
    ["JSON null", "null"],
    ["a JSON string", '"forest"'],
    ["no authoring member", '{"version":1}'],
    ["authoring not an object", '{"version":1,"authoring":"forest"}'],
    ["authoring an array", `{"version":1,"authoring":["${T1}","${T2}"]}`],
    ["another version", `{"version":7,"authoring":{"forest":"${T1}"}}`],
    ["empty", ""],
  ])("a malformed memo (%s) is an empty one", (_, text) => {
    const dir = tempDir();
    plant(dir, text);
    expect(readUnavailableMemo(dir).size).toBe(0);
  });

  it("drops entries whose time is not a string, keeps the others", () => {
    const dir = tempDir();
    plant(
      dir,
      JSON.stringify({
        version: 1,
        authoring: { forest: T1, bad1: 12, bad2: null, bad3: { at: T2 }, bad4: true },
      }),
    );
    expect(readUnavailableMemo(dir)).toEqual(new Map([["forest", T1]]));
  });

  it("does not read the memo through a symlink", () => {
    const dir = tempDir();
    mkdirSync(stateDir(dir), { mode: 0o700 });
    const elsewhere = join(tempDir(), "planted.json");
    writeFileSync(elsewhere, JSON.stringify({ version: 1, authoring: { forest: T1 } }));
    symlinkSync(elsewhere, memoPath(dir));
    expect(readUnavailableMemo(dir).size).toBe(0);
  });

  it("refuses a .svc-dl that is a symlink (exit 8, unsafe_state_dir), reading nothing", () => {
    const dir = tempDir();
    const elsewhere = tempDir();
    plant(elsewhere, JSON.stringify({ version: 1, authoring: { forest: T1 } }));
    symlinkSync(stateDir(elsewhere), stateDir(dir));
    expect(() => readUnavailableMemo(dir)).toThrow(
      expect.objectContaining({ code: "unsafe_state_dir", exitCode: 8 }),
    );
  });

  it("ignores a memo that is a directory", () => {
    const dir = tempDir();
    mkdirSync(memoPath(dir), { recursive: true, mode: 0o700 });
    expect(readUnavailableMemo(dir).size).toBe(0);
  });
});

describe("writeUnavailableMemo", () => {
  it("round-trips through readUnavailableMemo", async () => {
    const dir = tempDir();
    const memo = new Map([
      ["forest", T1],
      ["desert", T2],
    ]);
    await writeUnavailableMemo(dir, memo);
    expect(readUnavailableMemo(dir)).toEqual(memo);
  });

  it("writes version 1, slugs sorted, two-space indented, newline-terminated", async () => {
    const dir = tempDir();
    await writeUnavailableMemo(
      dir,
      new Map([
        ["zeta", T2],
        ["alpha", T1],
        ["mid", T1],
      ]),
    );
    const text = readFileSync(memoPath(dir), "utf8");
    expect(text.endsWith("}\n")).toBe(true);
    expect(text).toContain('\n  "version": 1');
    const parsed = JSON.parse(text) as { version: number; authoring: Record<string, string> };
    expect(parsed).toEqual({ version: 1, authoring: { alpha: T1, mid: T1, zeta: T2 } });
    expect(Object.keys(parsed.authoring)).toEqual(["alpha", "mid", "zeta"]);
  });

  it("an empty memo is written as an empty one", async () => {
    const dir = tempDir();
    await writeUnavailableMemo(dir, new Map([["forest", T1]]));
    await writeUnavailableMemo(dir, new Map());
    expect(JSON.parse(readFileSync(memoPath(dir), "utf8"))).toEqual({ version: 1, authoring: {} });
    expect(readUnavailableMemo(dir).size).toBe(0);
  });

  it("creates .svc-dl 0700 and the file 0600", async () => {
    const dir = tempDir();
    await writeUnavailableMemo(dir, new Map([["forest", T1]]));
    expect(statSync(stateDir(dir)).mode & 0o777).toBe(0o700);
    expect(statSync(memoPath(dir)).mode & 0o777).toBe(0o600);
  });

  it("replaces a symlink at the memo's path, never writing through it", async () => {
    const dir = tempDir();
    mkdirSync(stateDir(dir), { mode: 0o700 });
    const victim = join(tempDir(), "victim.txt");
    writeFileSync(victim, "untouched");
    symlinkSync(victim, memoPath(dir));
    await writeUnavailableMemo(dir, new Map([["forest", T1]]));
    expect(readFileSync(victim, "utf8")).toBe("untouched");
    expect(lstatSync(memoPath(dir)).isSymbolicLink()).toBe(false);
    expect(readUnavailableMemo(dir)).toEqual(new Map([["forest", T1]]));
  });

  it("leaves the other files of .svc-dl alone", async () => {
    const dir = tempDir();
    mkdirSync(stateDir(dir), { mode: 0o700 });
    writeFileSync(join(stateDir(dir), "state.json"), "keep me");
    await writeUnavailableMemo(dir, new Map([["forest", T1]]));
    expect(readFileSync(join(stateDir(dir), "state.json"), "utf8")).toBe("keep me");
  });

  it("refuses a .svc-dl writable by others (exit 8, unsafe_state_dir)", async () => {
    const dir = tempDir();
    mkdirSync(stateDir(dir));
    chmodSync(stateDir(dir), 0o777);
    const err = await writeUnavailableMemo(dir, new Map([["forest", T1]])).catch((e) => e);
    expect(err).toBeInstanceOf(FileSystemError);
    expect((err as FileSystemError).code).toBe("unsafe_state_dir");
    expect((err as FileSystemError).exitCode).toBe(8);
    expect(() => lstatSync(memoPath(dir))).toThrow();
  });
});
