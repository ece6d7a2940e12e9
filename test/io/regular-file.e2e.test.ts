import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readExtractedManifest } from "../../src/extract/manifest.js";
import { tlsTrust } from "../../src/http/tls-trust.js";
import { NotRegularFileError, readFileNoBlock } from "../../src/io/regular-file.js";
import { runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/files.js";
import { useMockService } from "../helpers/mock.js";

/**
 * Files svc-dl reads from a path it did not make never block the run (cli-contract "Untrusted
 * text, paths and caches"; src/io/regular-file.ts): a FIFO at the path, which a plain read
 * would wait on for ever, is refused with a clear error (or, for svc-dl's own state files,
 * treated as absent). Every FIFO here has no writer: a blocking open would hang the test.
 */

const shared = useMockService({ assetSize: 4 * 1024 });

function fifo(path: string): string {
  execFileSync("mkfifo", [path]);
  return path;
}

describe("readFileNoBlock", () => {
  it("reads a regular file, and through a symlink only when asked", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "a.txt"), "hello");
    symlinkSync(join(dir, "a.txt"), join(dir, "link"));
    expect(readFileNoBlock(join(dir, "a.txt")).toString()).toBe("hello");
    expect(readFileNoBlock(join(dir, "link"), { follow: true }).toString()).toBe("hello");
    expect(() => readFileNoBlock(join(dir, "link"))).toThrow(
      new NotRegularFileError("it is a symbolic link, not a regular file"),
    );
  });

  it("refuses a FIFO, a directory, a device and a file over the limit; a missing file is ENOENT", () => {
    const dir = tempDir();
    const pipe = fifo(join(dir, "pipe"));
    mkdirSync(join(dir, "d"));
    writeFileSync(join(dir, "big"), "x".repeat(100));
    expect(() => readFileNoBlock(pipe)).toThrow("it is a FIFO (named pipe), not a regular file");
    expect(() => readFileNoBlock(pipe, { follow: true })).toThrow(NotRegularFileError);
    expect(() => readFileNoBlock(join(dir, "d"))).toThrow("it is a directory");
    expect(() => readFileNoBlock("/dev/zero", { follow: true })).toThrow("it is a device node");
    expect(() => readFileNoBlock(join(dir, "big"), { maxBytes: 99 })).toThrow(
      "larger than 99 bytes",
    );
    expect(() => readFileNoBlock(join(dir, "nothing"))).toThrow(
      expect.objectContaining({ code: "ENOENT" }),
    );
  });
});

describe("a FIFO where svc-dl reads a file", () => {
  it("svc-dl.json is a FIFO: install exits 2 manifest_missing at once, naming it, no request", async () => {
    const root = tempDir();
    fifo(join(root, "svc-dl.json"));
    shared.mock.clearLog();
    const r = await runCli(["--json", "install"], { env: shared.env(), cwd: root });
    expect(r.code, r.stderr).toBe(2);
    const { error } = JSON.parse(r.stderr.trim().split("\n").at(-1) ?? "{}") as {
      error: { code: string; message: string; hint: string };
    };
    expect(error.code).toBe("manifest_missing");
    expect(error.message).toContain("it is a FIFO (named pipe), not a regular file");
    expect(error.hint).toContain("regular file");
    expect(error.hint).toContain(join(root, "svc-dl.json"));
    expect(shared.mock.requests).toHaveLength(0);
  });

  it("--ca-file names a FIFO: exit 2 invalid_ca_file, no request", async () => {
    const dir = tempDir();
    const pipe = fifo(join(dir, "ca.pem"));
    shared.mock.clearLog();
    const r = await runCli(["--ca-file", pipe, "asset", "get", "forest-pine-tree"], {
      env: shared.env(),
      cwd: dir,
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain("invalid_ca_file");
    expect(r.stderr).toContain("it is a FIFO (named pipe), not a regular file");
    expect(shared.mock.requests).toHaveLength(0);
  });

  it("NODE_EXTRA_CA_CERTS of a library call names a FIFO: skipped, the CA file still applies", () => {
    const dir = tempDir();
    const pipe = fifo(join(dir, "extra.pem"));
    const pem = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
    writeFileSync(join(dir, "ca.pem"), pem);
    const trust = tlsTrust({ caFile: join(dir, "ca.pem"), env: { NODE_EXTRA_CA_CERTS: pipe } });
    expect(trust.extraPem).toEqual([pem]);
  });

  it("a FIFO planted at .svc-dl/extracted.json reads as an empty record, at once", () => {
    const dir = tempDir();
    mkdirSync(join(dir, ".svc-dl"));
    fifo(join(dir, ".svc-dl", "extracted.json"));
    expect(readExtractedManifest(dir)).toEqual({ version: 1, folders: {} });
  });
});
