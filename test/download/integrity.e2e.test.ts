import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type MockService, startMockService } from "../../src/mock-server/index.js";
import { runCli } from "../helpers/cli.js";
import { envFor, sha256Of, tempDir } from "../helpers/download.js";

let mock: MockService;
beforeAll(async () => {
  mock = await startMockService({ packSize: 128 * 1024, assetSize: 32 * 1024 });
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.set({ faults: {} });
  mock.clearLog();
});

function finalFiles(dir: string): string[] {
  return readdirSync(dir).filter((f) => f !== ".svc-dl");
}

function partFiles(dir: string): string[] {
  return existsSync(join(dir, ".svc-dl"))
    ? readdirSync(join(dir, ".svc-dl")).filter((f) => f.includes(".part"))
    : [];
}

describe("integrity", () => {
  it("an HTML page served as the file is never saved (exit 7, corrupt_download)", async () => {
    mock.set({ faults: { htmlErrorPage: { count: 2, status: 200 } } }); // fetched again once from zero
    const dir = tempDir();
    const r = await runCli(["asset", "get", "forest-pine-tree"], { env: envFor(mock), cwd: dir });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain("corrupt_download");
    expect(r.stderr).toMatch(/request id \S+/);
    expect(finalFiles(dir)).toEqual([]);
    expect(partFiles(dir)).toEqual([]);
  });

  it("a body that keeps ending short fails with exit 7 and leaves no final file", async () => {
    mock.set({ faults: { shortBody: { count: 50, bytes: 1000 } } });
    const dir = tempDir();
    const r = await runCli(["pack", "get", "sci-fi-props"], { env: envFor(mock), cwd: dir });
    expect(r.code).toBe(7);
    expect(finalFiles(dir)).toEqual([]);
  });

  it("a body that ends short once is resumed to the complete file", async () => {
    const info = await mock.fileInfo({ kind: "pack", slug: "sci-fi-props" });
    mock.set({ faults: { shortBody: { count: 1, bytes: 50_000 } } });
    const dir = tempDir();
    const r = await runCli(["pack", "get", "sci-fi-props"], { env: envFor(mock), cwd: dir });
    expect(r.code).toBe(0);
    expect(sha256Of(join(dir, info.filename))).toBe(info.sha256);
  });

  it("a redirect loop stops after 10 hops with a clear error", async () => {
    mock.set({ faults: { redirectLoop: true } });
    const r = await runCli(["asset", "get", "forest-pine-tree"], {
      env: envFor(mock),
      cwd: tempDir(),
    });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain("too_many_redirects");
  });
});

describe("hostile Content-Disposition names never escape the output directory", () => {
  const cases: [string, string][] = [
    ['attachment; filename="../../evil.zip"', "evil.zip"],
    ['attachment; filename="/etc/passwd"', "passwd"],
    ["attachment; filename*=UTF-8''..%2F..%2Fup.zip", "up.zip"],
    ['attachment; filename="..\\\\..\\\\win.zip"', "win.zip"],
    ["attachment; filename*=UTF-8''a%01b%0Ac%1B.zip", "abc.zip"],
    ['attachment; filename=""', "sci-fi-props.zip"],
    ['attachment; filename=".."', "sci-fi-props.zip"],
    ['attachment; filename=".svc-dl"', "svc-dl"],
    ["attachment", "sci-fi-props.zip"],
  ];
  it.each(cases)("%s → %s", async (header, expected) => {
    mock.set({ faults: { contentDisposition: header } });
    const root = tempDir();
    const dir = join(root, "out");
    mkdirSync(dir);
    const r = await runCli(["pack", "get", "sci-fi-props", "-o", "out"], {
      env: envFor(mock),
      cwd: root,
    });
    expect(r.code).toBe(0);
    expect(readdirSync(root)).toEqual(["out"]);
    expect(finalFiles(dir)).toEqual([expected]);
    expect(r.stdout.trim()).toBe(join(dir, expected));
    expect(existsSync("/etc/passwd") ? readFileSync("/etc/passwd", "utf8") : "").not.toContain(
      "PK",
    );
  });
});
