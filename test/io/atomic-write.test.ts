import {
  chmodSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hashRegularFile, hashRegularFileSync } from "../../src/io/file-hash.js";
import { writeOutputFile } from "../../src/io/output-file.js";
import { writePrivateFileAtomic } from "../../src/io/safe-fs.js";

// The one atomic writer and the one file hasher: a symlink in the way is never followed.
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "svc-dl-atomic-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("atomic writers", () => {
  it("replaces a symlink at a private file's name instead of writing through it", () => {
    const victim = join(dir, "victim");
    writeFileSync(victim, "keep");
    const path = join(dir, "link");
    symlinkSync(victim, path);
    writePrivateFileAtomic(path, "new");
    expect(lstatSync(path).isFile()).toBe(true);
    expect(readFileSync(path, "utf8")).toBe("new");
    expect(readFileSync(victim, "utf8")).toBe("keep");
  });

  it("keeps the mode of the shared file it replaces; private files are 0600", () => {
    const shared = join(dir, "svc-dl.lock");
    writeFileSync(shared, "old");
    chmodSync(shared, 0o640);
    writeOutputFile("svc-dl.lock", shared, "new");
    expect(statSync(shared).mode & 0o777).toBe(0o640);
    const priv = join(dir, "state.json");
    writePrivateFileAtomic(priv, "{}");
    expect(statSync(priv).mode & 0o777).toBe(0o600);
  });
});

describe("file hasher", () => {
  it("hashes a regular file and refuses a symlink, blocking or not", async () => {
    const file = join(dir, "a");
    writeFileSync(file, "abc");
    const want = {
      sha256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
      bytes: 3,
    };
    expect(hashRegularFileSync(file)).toEqual(want);
    expect(await hashRegularFile(file)).toEqual(want);
    symlinkSync(file, join(dir, "l"));
    expect(hashRegularFileSync(join(dir, "l"))).toBeUndefined();
    expect(await hashRegularFile(join(dir, "l"))).toBeUndefined();
    expect(hashRegularFileSync(join(dir, "missing"))).toBeUndefined();
  });
});
