import { execFileSync } from "node:child_process";
import {
  chmodSync,
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileSystemError } from "../../src/errors/file-system-error.js";
import { appendOutputFile, readOutputFile, writeOutputFile } from "../../src/io/output-file.js";

// The one writer of files outside `.svc-dl/`: a regular file or nothing at the path; a symlink,
// FIFO, device node or directory is refused (exit 8) and left exactly as it was.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "svc-dl-output-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

type Writer = (path: string) => unknown;
const WRITERS: [string, Writer][] = [
  ["write", (p) => writeOutputFile("--report file", p, "new\n")],
  ["append", (p) => appendOutputFile("GITHUB_STEP_SUMMARY file", p, "new\n")],
  ["read", (p) => readOutputFile("svc-dl.lock", p)],
];

/** The thrown error of `fn`, which must throw. */
function thrown(fn: () => unknown): FileSystemError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(FileSystemError);
    return err as FileSystemError;
  }
  throw new Error("expected a refusal");
}

function expectRefused(fn: () => unknown, kind: string): void {
  const err = thrown(fn);
  expect(err.code).toBe("unsafe_output_path");
  expect(err.exitCode).toBe(8);
  expect(err.message).toContain(kind);
}

/** No temp file of a writer is left in `dir`. */
function noTempLeft(): void {
  expect(readdirSync(dir).filter((n) => n.endsWith(".tmp"))).toEqual([]);
}

describe.each(WRITERS)("%s", (_name, writer) => {
  it("refuses a symlink: neither followed nor replaced", () => {
    const victim = join(dir, "victim");
    writeFileSync(victim, "keep");
    const link = join(dir, "out");
    symlinkSync(victim, link);
    expectRefused(() => writer(link), "a symbolic link");
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(victim, "utf8")).toBe("keep");
    // a dangling one too (it would create the file it points to)
    const dangling = join(dir, "dangling");
    symlinkSync(join(dir, "nowhere"), dangling);
    expectRefused(() => writer(dangling), "a symbolic link");
    expect(readdirSync(dir).sort()).toEqual(["dangling", "out", "victim"]);
  });

  it("refuses a FIFO without opening it: a reader gets nothing, the FIFO stays", () => {
    const fifo = join(dir, "out.fifo");
    execFileSync("mkfifo", [fifo]);
    // a reader is waiting: an open for writing would succeed and feed it
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      expectRefused(() => writer(fifo), "a FIFO");
      const buf = Buffer.alloc(64);
      let got = 0;
      try {
        got = readSync(reader, buf, 0, buf.length, null);
      } catch (err) {
        expect((err as NodeJS.ErrnoException).code).toBe("EAGAIN");
      }
      expect(got).toBe(0);
    } finally {
      closeSync(reader);
    }
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    noTempLeft();
  });

  it("refuses a device node (made with mknod) and leaves it a device", () => {
    const dev = join(dir, "null");
    execFileSync("mknod", [dev, "c", "1", "3"]); // the null device's numbers
    expectRefused(() => writer(dev), "a device node");
    expect(lstatSync(dev).isCharacterDevice()).toBe(true);
    noTempLeft();
  });

  it("refuses a directory and leaves it as it was", () => {
    const sub = join(dir, "out");
    mkdirSync(sub);
    writeFileSync(join(sub, "inside"), "x");
    expectRefused(() => writer(sub), "a directory");
    expect(readdirSync(sub)).toEqual(["inside"]);
    noTempLeft();
  });
});

describe("a regular file or nothing", () => {
  it("write replaces a regular file atomically, keeping its mode, and creates a missing one", () => {
    const file = join(dir, "report.json");
    writeFileSync(file, "old");
    chmodSync(file, 0o640);
    writeOutputFile("--report file", file, "new");
    expect(readFileSync(file, "utf8")).toBe("new");
    expect(statSync(file).mode & 0o777).toBe(0o640);
    const fresh = join(dir, "fresh.prom");
    writeOutputFile("--metrics file", fresh, "x 1\n");
    expect(readFileSync(fresh, "utf8")).toBe("x 1\n");
    noTempLeft();
  });

  it("append adds to a regular file (the runner's) and creates a missing one", () => {
    const file = join(dir, "summary.md");
    writeFileSync(file, "# earlier step\n");
    appendOutputFile("GITHUB_STEP_SUMMARY file", file, "mine\n");
    expect(readFileSync(file, "utf8")).toBe("# earlier step\nmine\n");
    const fresh = join(dir, "fresh.md");
    appendOutputFile("GITHUB_STEP_SUMMARY file", fresh, "a\n");
    expect(readFileSync(fresh, "utf8")).toBe("a\n");
  });

  it("read gives a regular file's text and nothing for a missing one", () => {
    const file = join(dir, "svc-dl.lock");
    writeFileSync(file, "{}\n");
    expect(readOutputFile("svc-dl.lock", file)).toBe("{}\n");
    expect(readOutputFile("svc-dl.lock", join(dir, "missing"))).toBeUndefined();
  });

  it("a folder that does not exist is write_failed (exit 8), naming the file", () => {
    const file = join(dir, "no", "such", "report.json");
    const err = thrown(() => writeOutputFile("--report file", file, "x"));
    expect(err.code).toBe("write_failed");
    expect(err.exitCode).toBe(8);
    expect(err.message).toContain(`the --report file ${file}`);
  });
});
