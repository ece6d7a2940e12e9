import { execFileSync } from "node:child_process";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SvcError } from "../../src/errors/svc-error.js";
import { resolveDestination } from "../../src/outdir/destination.js";

const cwd = () => mkdtempSync(join(tmpdir(), "svc-dl-dest-"));

describe("resolveDestination (cli-contract: Downloads, -o PATH)", () => {
  it("no -o: the working directory; -: stdout", () => {
    const dir = cwd();
    expect(resolveDestination(undefined, dir)).toEqual({ kind: "file", dir });
    expect(resolveDestination("-", dir)).toEqual({ kind: "stdout" });
  });

  it("an existing directory, or a path ending in /, is a directory (created if missing)", () => {
    const dir = cwd();
    mkdirSync(join(dir, "there"));
    expect(resolveDestination("there", dir)).toEqual({ kind: "file", dir: join(dir, "there") });
    expect(resolveDestination("new/sub/", dir)).toEqual({
      kind: "file",
      dir: join(dir, "new", "sub"),
    });
    expect(statSync(join(dir, "new", "sub")).isDirectory()).toBe(true);
  });

  it("any other path is the exact file, its directory created", () => {
    const dir = cwd();
    expect(resolveDestination("models/pine.glb", dir)).toEqual({
      kind: "file",
      dir: join(dir, "models"),
      fileName: "pine.glb",
    });
    expect(statSync(join(dir, "models")).isDirectory()).toBe(true);
  });

  it("an empty path is a usage error (exit 2)", () => {
    let caught: unknown;
    try {
      resolveDestination("  ", cwd());
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(SvcError);
    expect((caught as SvcError).exitCode).toBe(2);
  });

  it("a FIFO (or device, or socket) is refused with special_file (exit 8), creating nothing", () => {
    const dir = cwd();
    execFileSync("mkfifo", [join(dir, "pipe")]);
    expect(() => resolveDestination("pipe", dir)).toThrow(
      expect.objectContaining({ code: "special_file", exitCode: 8 }),
    );
    expect(readdirSync(dir)).toEqual(["pipe"]);
    expect(lstatSync(join(dir, "pipe")).isFIFO()).toBe(true);
  });
});
