/**
 * Chunked responses (no Content-Length) resume like any other (cli-contract "Downloads"): the
 * partial data is kept with its ETag, the resume's Content-Range total fixes the size, and a
 * 416 `bytes *\/N` with N = the bytes on disk completes the file without downloading again.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { partialPaths } from "../../src/outdir/partial.js";
import { launchCli, registerSecret } from "../helpers/cli.js";
import { makeGlb, type RawServer, serveFile, startRawServer } from "../helpers/raw-server.js";
import { whenInDir } from "../helpers/wait.js";
import { run, sha256, sha256Of, tempDir } from "../reliability/helpers/harness.js";

const KEY = "svc_live_ChunkedResumeKeyAbCdEf0123456789_c0ffee00";
registerSecret(KEY);
const SLUG = "chunked-asset";
const FILE = makeGlb(300 * 1024, 11);
const ETAG = `"f-${FILE.length}"`;
const ITEM = { kind: "asset" as const, slug: SLUG, edition: null };

const servers: RawServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

/** A service whose CDN serves FILE chunked; `slow` sends it in 4 KiB steps every 25 ms. */
async function service(slow: () => boolean): Promise<RawServer> {
  const s = await startRawServer((req, res) => {
    if (req.url === `/api/v1/assets/${SLUG}/download`) {
      res.writeHead(302, { location: "/cdn/model.glb", "content-length": "0" }).end();
      return;
    }
    if (!slow()) {
      serveFile(req, res, FILE, "model.glb", { contentLength: false });
      return;
    }
    res.writeHead(200, { etag: ETAG, "content-type": "model/gltf-binary" });
    let at = 0;
    const timer = setInterval(() => {
      if (at >= FILE.length || res.destroyed) {
        clearInterval(timer);
        return;
      }
      res.write(FILE.subarray(at, at + 4 * 1024));
      at += 4 * 1024;
    }, 25);
    res.on("close", () => clearInterval(timer));
  });
  servers.push(s);
  return s;
}

describe("chunked downloads resume", () => {
  it("a kill mid-download keeps the chunked partial with its ETag; the rerun resumes with Range", async () => {
    let slow = true;
    const s = await service(() => slow);
    const dir = tempDir("svc-dl-chunked-");
    const env = { SVC_BASE_URL: s.url, SVC_API_KEY: KEY };
    const cli = launchCli(["asset", "get", SLUG], { env, cwd: dir });
    const paths = partialPaths(dir, ITEM);
    await whenInDir(
      dirname(paths.data),
      () => (statSync(paths.data, { throwIfNoEntry: false })?.size ?? 0) >= 64 * 1024,
      { what: "64 KiB of partial data", until: cli.done },
    );
    cli.child.kill("SIGKILL");
    await cli.done;
    const meta = JSON.parse(readFileSync(paths.meta, "utf8")) as { etag: string; total: number };
    expect(meta).toMatchObject({ etag: ETAG, total: -1 });
    slow = false;
    const r = await run(["asset", "get", SLUG, "--json"], { env, cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.doc?.status).toBe("resumed");
    expect(r.doc?.sha256).toBe(sha256(FILE));
    const last = s.requests.filter((q) => q.url.startsWith("/cdn/")).at(-1);
    expect(last?.headers.range).toMatch(/^bytes=\d+-$/);
    expect(last?.headers["if-range"]).toBe(ETAG);
  });

  it("all bytes on disk, size unknown: 416 bytes */N completes the file without downloading again", async () => {
    const s = await service(() => false);
    const dir = tempDir("svc-dl-chunked-416-");
    mkdirSync(join(dir, ".svc-dl"), { recursive: true });
    const paths = partialPaths(dir, ITEM);
    writeFileSync(paths.data, FILE);
    writeFileSync(
      paths.meta,
      JSON.stringify({
        version: 1,
        ...ITEM,
        etag: ETAG,
        total: -1,
        file: "model.glb",
        started_at: new Date().toISOString(),
      }),
    );
    const r = await run(["asset", "get", SLUG, "--json"], {
      env: { SVC_BASE_URL: s.url, SVC_API_KEY: KEY },
      cwd: dir,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.doc).toMatchObject({
      status: "resumed",
      resumed_from: FILE.length,
      bytes: FILE.length,
    });
    expect(sha256Of(join(dir, "model.glb"))).toBe(sha256(FILE));
    const cdn = s.requests.filter((q) => q.url.startsWith("/cdn/"));
    expect(cdn).toHaveLength(1);
    expect(cdn[0]?.headers.range).toBe(`bytes=${FILE.length}-`);
  });
});
