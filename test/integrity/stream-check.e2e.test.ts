/**
 * The ZIP check that runs while a pack downloads (cli-contract "Integrity"), over real loopback
 * HTTP: sound packs of every shape are placed with the served bytes; anything it is unsure of
 * (a data descriptor, damage) goes to findDamage, whose verdict and message stay the authority
 * (test/download/part-file-verdict.test.ts shows which verdict each gets). Packs other than
 * the mock's own are served by a small CDN the service's pack route redirects to.
 */

import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { describeDamage, findDamage } from "../../src/integrity/check-file.js";
import { type MockService, startMockService } from "../../src/mock-server/index.js";
import { runCli, spawnCli } from "../helpers/cli.js";
import { envFor, sha256Of, tempDir } from "../helpers/download.js";
import { type FrontServer, startFrontServer } from "../helpers/front-server.js";
import { type RawServer, serveFile, startRawServer } from "../helpers/raw-server.js";
import {
  buildZip,
  flipped,
  halfCompressible,
  localOffsets,
  zip64SizesArchive,
} from "./zip-samples.js";

const SLUG = "low-poly-forest";
/** GLB-like entries, deflated to about half: 3 MiB of archive. */
const DEFLATED = buildZip(
  Array.from({ length: 6 }, (_, i) => ({
    name: `models/m${i}.glb`,
    data: halfCompressible(1_000_000 + i * 7, 100 + i),
    method: 8 as const,
  })),
);

let mock: MockService;
let cdn: RawServer;
let front: FrontServer;
/** What the CDN serves now, and how (each answer takes the next cut, while there are some). */
let served: { bytes: Buffer; dropFirst?: number[] } = { bytes: DEFLATED };

beforeAll(async () => {
  mock = await startMockService({ packSize: 4 * 1024 * 1024 });
  cdn = await startRawServer((req, res) => {
    const dropAfter = served.dropFirst?.shift();
    serveFile(req, res, served.bytes, "custom.zip", {
      etag: `"z-${createHash("sha256").update(served.bytes).digest("hex").slice(0, 16)}"`,
      ...(dropAfter !== undefined ? { dropAfter } : {}),
    });
  });
  front = await startFrontServer(
    mock.baseUrl,
    (req, res) => {
      if (!req.url?.startsWith(`/api/v1/packs/${SLUG}/download`)) return false;
      res.writeHead(302, { location: `${cdn.url}/files/custom.zip?sig=${Date.now()}` }).end();
      return true;
    },
    // the listing's download links name the mock's origin: the front's, so the key goes there
    (_path, body) => JSON.parse(JSON.stringify(body).replaceAll(mock.baseUrl, front.url)),
  );
});
afterAll(async () => {
  await front.close();
  await cdn.close();
  await mock.close();
});
beforeEach(() => {
  mock.set({ faults: {} });
});

/** `pack get` through the front (custom bytes from the CDN) or straight from the mock. */
async function get(args: string[] = [], viaFront = true) {
  const dir = tempDir();
  const env = viaFront ? { SVC_BASE_URL: front.url, SVC_API_KEY: mock.apiKey } : envFor(mock);
  const r = await runCli(["pack", "get", SLUG, "-o", "p.zip", ...args], { env, cwd: dir });
  return { ...r, file: join(dir, "p.zip"), dir };
}

/** The message findDamage gives for `bytes` (what the run must print). */
async function damageOf(bytes: Buffer): Promise<string> {
  const path = join(tempDir(), "d.zip");
  writeFileSync(path, bytes);
  const damage = await findDamage(path, "zip");
  if (!damage) throw new Error("not damaged");
  return describeDamage(damage);
}

describe("a pack checked while it downloads", () => {
  it("the mock's pack (stored GLBs, a deflated licence): placed with the served bytes", async () => {
    const info = await mock.fileInfo({ kind: "pack", slug: SLUG });
    const r = await get([], false);
    expect(r.code, r.stderr).toBe(0);
    expect(sha256Of(r.file)).toBe(info.sha256);
  });

  it("a deflated pack, a ZIP64 one, and one with an encrypted entry: placed with the served bytes", async () => {
    for (const bytes of [DEFLATED, zip64SizesArchive()]) {
      served = { bytes };
      const r = await get();
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(r.file).equals(bytes)).toBe(true);
    }
    mock.set({ faults: { hostileArchive: "encrypted" } });
    const enc = await get([], false);
    expect(enc.code, enc.stderr).toBe(0);
  });

  it("a pack with data descriptors: placed (findDamage decides)", async () => {
    served = {
      bytes: buildZip([
        { name: "a.glb", data: halfCompressible(200_000, 1), method: 8, flags: 0x0008 },
        { name: "b.txt", data: Buffer.from("b"), method: 0 },
      ]),
    };
    const r = await get();
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(r.file).equals(served.bytes)).toBe(true);
  });

  it("resumed after a cut (kept part + new bytes), and paced by --limit-rate: the served bytes", async () => {
    served = { bytes: DEFLATED, dropFirst: [1_234_567] };
    const before = cdn.requests.length;
    const r = await get();
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(r.file).equals(DEFLATED)).toBe(true);
    const asked = cdn.requests.slice(before).map((q) => q.headers.range);
    expect(asked).toEqual([undefined, expect.stringMatching(/^bytes=[1-9]\d*-$/)]);
    served = { bytes: DEFLATED };
    const paced = await get(["--limit-rate", "4M"]);
    expect(paced.code, paced.stderr).toBe(0);
    expect(readFileSync(paced.file).equals(DEFLATED)).toBe(true);
  });

  it("damage deep inside (data, a local header, a moved header): exit 7 naming what findDamage names", async () => {
    const offsets = localOffsets(DEFLATED);
    const last = offsets.at(-1) ?? 0;
    const moved = Buffer.from(DEFLATED);
    const record = DEFLATED.lastIndexOf(Buffer.from("models/m5.glb")) - 46;
    moved.writeUInt32LE(last + 1, record + 42);
    const cases = [
      flipped(DEFLATED, (offsets[3] ?? 0) + 500_000), // deflated data deep inside
      flipped(DEFLATED, (offsets[4] ?? 0) + 14), // a local header's CRC-32
      moved, // the central directory points one byte past a local header
    ];
    for (const bytes of cases) {
      served = { bytes };
      const expected = await damageOf(bytes);
      const r = await get();
      expect(r.code, r.stderr).toBe(7);
      expect(r.stderr).toContain(`corrupt download: ${expected}`);
      expect(r.stderr).toContain("corrupt_download");
    }
  });

  it("a stored entry of the mock's pack damaged on both tries: exit 7 naming the entry and offset", async () => {
    const info = await mock.fileInfo({ kind: "pack", slug: SLUG });
    const at = Math.floor(info.size * 0.6);
    const clean = await get([], false);
    const expected = await damageOf(flipped(readFileSync(clean.file), at, 0xff));
    mock.set({ faults: { flipByte: { offset: at, count: 2 } } });
    const r = await get([], false);
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toContain(`corrupt download: ${expected}`);
  });

  it("the program (bin/svc-dl.js) runs a young-generation collection after every 4 MiB inflated, a full one every 128 MiB", async () => {
    served = {
      bytes: buildZip([
        { name: "a.bin", data: Buffer.alloc(66 << 20, 1), method: 8 },
        { name: "b.bin", data: Buffer.alloc(66 << 20, 2), method: 8 },
      ]),
    };
    const dir = tempDir();
    const r = await spawnCli(["pack", "get", SLUG, "-o", "p.zip"], {
      env: { SVC_BASE_URL: front.url, SVC_API_KEY: mock.apiKey },
      cwd: dir,
      nodeArgs: ["--trace-gc"],
    });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(dir, "p.zip")).equals(served.bytes)).toBe(true);
    // V8 names a collection asked for through `gc()` "testing": 132 MiB inflated, 33 of them,
    // the 32nd full
    const lines = r.stdout.split("\n");
    expect(lines.filter((line) => /Scavenge.*testing/.test(line)).length).toBeGreaterThanOrEqual(
      32,
    );
    expect(
      lines.filter((line) => /Mark-Compact.*testing/.test(line)).length,
    ).toBeGreaterThanOrEqual(1);
  });
});
