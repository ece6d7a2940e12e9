import { createHash } from "node:crypto";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import * as nodeModule from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CODE_ENTRY } from "../../src/cache/layout.js";
import { spawnCli } from "../helpers/cli.js";
import { useMockService } from "../helpers/mock.js";

// The program's code cache is bin wiring: real processes, each with its own cache directory.
const shared = useMockService({ packSize: 4 * 1024 });
/** Node 20: the program's own entries (Node 22+ keeps its own files there instead). */
const OWN_ENTRIES =
  typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache !== "function";

function cacheRoot(): string {
  return join(mkdtempSync(join(tmpdir(), "svc-dl-cc-bin-")), "cache");
}

async function whoami(env: Record<string, string>) {
  const r = await spawnCli(["whoami"], { env: { ...shared.env(), ...env } });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toBe("");
  expect(r.stdout).toContain("usr_");
  return r.stdout.replace(/last used:.*$/m, ""); // the one line that changes between runs
}

const entryOf = (dir: string) =>
  join(dir, readdirSync(dir).find((n) => CODE_ENTRY.test(n)) ?? "missing");

describe("the program's code cache", () => {
  it("dist/program.cjs is the module function, strict like the ES modules, and ASCII only", () => {
    const text = readFileSync(new URL("../../dist/program.cjs", import.meta.url), "utf8");
    const wrapper = "(function (exports, require, module, __filename, __dirname) {";
    expect(text.startsWith(`${wrapper}"use strict";`)).toBe(true);
    // one character above U+00FF and V8 would hold all 2.9 MB as a two-byte string
    expect(text.match(/[\u0080-\uffff]/)).toBeNull();
  });

  it("is written 0700 on a first run and used by the next: same output, entry untouched", async () => {
    const root = cacheRoot();
    const first = await whoami({ SVC_DL_CACHE_DIR: root });
    const dir = join(root, "compile-cache");
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(await whoami({ SVC_DL_CACHE_DIR: root })).toBe(first);
    if (!OWN_ENTRIES) return;
    const entry = entryOf(dir);
    expect(entry).toMatch(/-whoami\.v8$/);
    const before = statSync(entry);
    expect(before.mode & 0o777).toBe(0o600);
    await whoami({ SVC_DL_CACHE_DIR: root });
    const after = statSync(entry);
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
  });

  it("--help never creates the cache directory (help stays on the ES modules, loads no crypto)", async () => {
    const root = cacheRoot();
    const r = await spawnCli(["--help"], { env: { ...shared.env(), SVC_DL_CACHE_DIR: root } });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Usage:");
    expect(existsSync(root)).toBe(false);
  });

  it("an entry V8 refuses (or a corrupt one) is replaced, silently, and the run works", async () => {
    const root = cacheRoot();
    await whoami({ SVC_DL_CACHE_DIR: root });
    if (!OWN_ENTRIES) return;
    const entry = entryOf(join(root, "compile-cache"));
    const header = readFileSync(entry).subarray(0, "svc-dl-code-cache-1\n".length);
    const junk = Buffer.alloc(64 * 1024, 7);
    // passes the entry's own hash: V8 itself must refuse it
    const refused = Buffer.concat([header, createHash("sha256").update(junk).digest(), junk]);
    for (const bad of [refused, Buffer.from("not a cache")]) {
      writeFileSync(entry, bad);
      await whoami({ SVC_DL_CACHE_DIR: root });
      expect(readFileSync(entry).equals(bad)).toBe(false);
      const rebuilt = statSync(entry);
      await whoami({ SVC_DL_CACHE_DIR: root });
      expect(statSync(entry).mtimeMs).toBe(rebuilt.mtimeMs); // the new entry is used
    }
  });

  it("a planted symlink, an unwritable root or NODE_DISABLE_COMPILE_CACHE: no cache, same output", async () => {
    const root = cacheRoot();
    const expected = await whoami({ SVC_DL_CACHE_DIR: root });
    const dir = join(root, "compile-cache");
    const victim = mkdtempSync(join(tmpdir(), "svc-dl-victim-"));
    rmSync(dir, { recursive: true });
    symlinkSync(victim, dir);
    expect(await whoami({ SVC_DL_CACHE_DIR: root })).toBe(expected);
    expect(readdirSync(victim)).toEqual([]);

    const file = join(mkdtempSync(join(tmpdir(), "svc-dl-cc-file-")), "a-file");
    writeFileSync(file, "");
    expect(await whoami({ SVC_DL_CACHE_DIR: join(file, "cache") })).toBe(expected);

    const off = cacheRoot();
    expect(await whoami({ SVC_DL_CACHE_DIR: off, NODE_DISABLE_COMPILE_CACHE: "1" })).toBe(expected);
    expect(existsSync(off)).toBe(false);
  });
});
