import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type MockService, startMockService } from "../../src/mock-server/index.js";
import { runCli } from "../helpers/cli.js";
import { envFor, sha256Of, tempDir } from "../helpers/download.js";

const PACK = 4 * 1024 * 1024;
let mock: MockService;
beforeAll(async () => {
  mock = await startMockService({ packSize: PACK, assetSize: 64 * 1024 });
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.set({ faults: {} });
});

function leftovers(dir: string): string[] {
  const state = join(dir, ".svc-dl");
  const parts = existsSync(state) ? readdirSync(state).filter((f) => f.includes(".part")) : [];
  return [...readdirSync(dir).filter((f) => f !== ".svc-dl"), ...parts];
}

describe("every pack and asset is checked before it takes its final name (cli-contract Integrity)", () => {
  it("a byte flipped deep inside a pack is found, the pack fetched again from zero, and placed intact", async () => {
    const info = await mock.fileInfo({ kind: "pack", slug: "sci-fi-props" });
    mock.set({ faults: { flipByte: { offset: Math.floor(info.size * 0.7), count: 1 } } });
    const dir = tempDir();
    const r = await runCli(["pack", "get", "sci-fi-props"], { env: envFor(mock), cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /sci-fi-props: corrupt download: entry "[^"]+\.glb" at byte \d+: CRC-32 of the data is [0-9a-f]{8}, the archive records [0-9a-f]{8}; downloading it again from the start/,
    );
    expect(sha256Of(join(dir, info.filename))).toBe(info.sha256);
  });

  it("damaged twice: exit 7 naming the entry, its offset and the request id; nothing in place, no partial data", async () => {
    const info = await mock.fileInfo({ kind: "pack", slug: "sci-fi-props" });
    mock.set({ faults: { flipByte: { offset: info.size - 200_000, count: 2 } } });
    const dir = tempDir();
    const r = await runCli(["pack", "get", "sci-fi-props"], { env: envFor(mock), cwd: dir });
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/corrupt download: entry "[^"]+" at byte \d+: .*nothing was saved/);
    expect(r.stderr).toContain("corrupt_download");
    expect(r.stderr).toMatch(/request id \S+/);
    expect(leftovers(dir)).toEqual([]);
  });

  it("an asset whose GLB JSON chunk was damaged is fetched again and placed intact", async () => {
    const info = await mock.fileInfo({ kind: "asset", slug: "forest-pine-tree" });
    mock.set({ faults: { flipByte: { offset: 20, count: 1 } } });
    const dir = tempDir();
    const r = await runCli(["asset", "get", "forest-pine-tree"], { env: envFor(mock), cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/corrupt download: at byte 20: GLB JSON chunk is not valid/);
    expect(sha256Of(join(dir, info.filename))).toBe(info.sha256);
  });

  it("an asset damaged twice fails with exit 7 and leaves nothing", async () => {
    mock.set({ faults: { flipByte: { offset: 16, count: 2 } } });
    const dir = tempDir();
    const r = await runCli(["asset", "get", "forest-pine-tree"], { env: envFor(mock), cwd: dir });
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/first GLB chunk is not JSON/);
    expect(leftovers(dir)).toEqual([]);
  });
});
