import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type MockService, startMockService } from "../../src/mock-server/index.js";
import { partialPaths } from "../../src/outdir/partial.js";
import { type LaunchedCli, launchCli, runCli } from "../helpers/cli.js";
import { cdnRequests, envFor, sha256Of, tempDir } from "../helpers/download.js";
import { whenInDir } from "../helpers/wait.js";

const SIZE = 512 * 1024;
const SLUG = "low-poly-forest";
let mock: MockService;

beforeAll(async () => {
  mock = await startMockService({ packSize: SIZE });
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.set({ faults: {} });
  mock.clearLog();
});

/** The exact bytes the mock serves now for the standard edition of SLUG. */
async function servedBytes(): Promise<Buffer> {
  const dir = tempDir();
  const r = await runCli(["pack", "get", SLUG, "-o", "ref.zip"], { env: envFor(mock), cwd: dir });
  expect(r.code).toBe(0);
  mock.clearLog();
  return readFileSync(join(dir, "ref.zip"));
}

/** Leaves a partial download of SLUG in `dir` as an interrupted run would. */
function seedPartial(dir: string, data: Buffer, meta: { etag: string; total: number }): void {
  mkdirSync(join(dir, ".svc-dl"), { recursive: true });
  const paths = partialPaths(dir, { kind: "pack", slug: SLUG, edition: "standard" });
  writeFileSync(paths.data, data);
  writeFileSync(
    paths.meta,
    JSON.stringify({
      version: 1,
      kind: "pack",
      slug: SLUG,
      edition: "standard",
      etag: meta.etag,
      total: meta.total,
      started_at: new Date().toISOString(),
    }),
  );
}

async function getJson(
  dir: string,
): Promise<{ code: number | null; doc: Record<string, unknown>; stderr: string }> {
  const r = await runCli(["pack", "get", SLUG, "--json"], { env: envFor(mock), cwd: dir });
  return {
    code: r.code,
    doc: r.stdout ? (JSON.parse(r.stdout) as Record<string, unknown>) : {},
    stderr: r.stderr,
  };
}

describe("resume", () => {
  it("resumes after dropped connections from the bytes already written", async () => {
    const info = await mock.fileInfo({ kind: "pack", slug: SLUG });
    mock.set({ faults: { dropAfterBytes: { bytes: 100_000, count: 2 } } });
    const dir = tempDir();
    const { code, doc } = await getJson(dir);
    expect(code).toBe(0);
    expect(doc.sha256).toBe(info.sha256);
    expect(sha256Of(join(dir, info.filename))).toBe(info.sha256);
    const cdn = cdnRequests(mock).filter((q) => q.status === 200 || q.status === 206);
    expect(cdn.length).toBe(3);
    expect(cdn[0]?.headers.range).toBeUndefined();
    expect(cdn[1]?.headers.range).toMatch(/^bytes=\d+-$/);
    expect(Number(cdn[1]?.headers.range?.slice(6, -1))).toBeGreaterThan(0);
    expect(cdn[1]?.headers["if-range"]).toBe(info.etag);
    expect(cdn[2]?.status).toBe(206);
    // every byte was fetched once: the later requests start where the earlier ones stopped
    const total = cdn.reduce((n, q) => n + q.bytesSent, 0);
    expect(total).toBeLessThanOrEqual(info.size + 2 * 65536);
  });

  it("206: appends to a partial file from an earlier run (status resumed)", async () => {
    const bytes = await servedBytes();
    const info = await mock.fileInfo({ kind: "pack", slug: SLUG });
    const dir = tempDir();
    seedPartial(dir, bytes.subarray(0, 200_000), { etag: info.etag, total: info.size });
    const { code, doc } = await getJson(dir);
    expect(code).toBe(0);
    expect(doc).toMatchObject({ status: "resumed", resumed_from: 200_000, sha256: info.sha256 });
    const cdn = cdnRequests(mock);
    expect(cdn.at(-1)?.headers.range).toBe("bytes=200000-");
    expect(cdn.at(-1)?.status).toBe(206);
    expect(sha256Of(join(dir, info.filename))).toBe(info.sha256);
  });

  it("200 after a version bump (If-Range mismatch): starts over, never splices", async () => {
    const oldBytes = await servedBytes();
    const oldInfo = await mock.fileInfo({ kind: "pack", slug: SLUG });
    const dir = tempDir();
    seedPartial(dir, oldBytes.subarray(0, 300_000), { etag: oldInfo.etag, total: oldInfo.size });
    mock.bumpPackVersion(SLUG);
    const info = await mock.fileInfo({ kind: "pack", slug: SLUG });
    expect(info.etag).not.toBe(oldInfo.etag);
    const { code, doc } = await getJson(dir);
    expect(code).toBe(0);
    expect(doc).toMatchObject({ status: "downloaded", resumed_from: 0, sha256: info.sha256 });
    const last = cdnRequests(mock).at(-1);
    expect(last?.headers["if-range"]).toBe(oldInfo.etag);
    expect(last?.status).toBe(200);
    expect(sha256Of(join(dir, info.filename))).toBe(info.sha256);
  });

  it("416 with bytes */SIZE and a complete partial: finishes without downloading", async () => {
    const bytes = await servedBytes();
    const info = await mock.fileInfo({ kind: "pack", slug: SLUG });
    const dir = tempDir();
    seedPartial(dir, bytes, { etag: info.etag, total: info.size });
    const { code, doc } = await getJson(dir);
    expect(code).toBe(0);
    expect(doc).toMatchObject({ status: "resumed", resumed_from: info.size, sha256: info.sha256 });
    expect(cdnRequests(mock).at(-1)?.status).toBe(416);
    expect(sha256Of(join(dir, info.filename))).toBe(info.sha256);
  });

  it("416 ignoring If-Range after a new version of the same size: starts over, never keeps the old bytes", async () => {
    const oldBytes = await servedBytes();
    const oldInfo = await mock.fileInfo({ kind: "pack", slug: SLUG });
    const dir = tempDir();
    seedPartial(dir, oldBytes, { etag: oldInfo.etag, total: oldInfo.size });
    mock.bumpPackVersion(SLUG);
    const info = await mock.fileInfo({ kind: "pack", slug: SLUG });
    expect(info.size).toBe(oldInfo.size);
    // a server that answers 416 `bytes */SIZE` with its current ETag whatever If-Range says
    mock.set({ faults: { rangeNotSatisfiable: { count: 1 } } });
    const { code, doc } = await getJson(dir);
    expect(code).toBe(0);
    expect(doc).toMatchObject({ status: "downloaded", resumed_from: 0, sha256: info.sha256 });
    const answers = cdnRequests(mock);
    expect(answers[0]).toMatchObject({ status: 416 });
    expect(answers[0]?.responseHeaders.etag).toBe(info.etag);
    expect(answers.at(-1)?.status).toBe(200);
    expect(sha256Of(join(dir, info.filename))).toBe(info.sha256);
  });

  it("416 for a partial that does not match the size: starts over", async () => {
    const info = await mock.fileInfo({ kind: "pack", slug: SLUG });
    const dir = tempDir();
    seedPartial(dir, Buffer.alloc(info.size + 50, 1), { etag: info.etag, total: info.size + 100 });
    const { code, doc } = await getJson(dir);
    expect(code).toBe(0);
    expect(doc).toMatchObject({ status: "downloaded", resumed_from: 0, sha256: info.sha256 });
    const statuses = cdnRequests(mock).map((q) => q.status);
    expect(statuses).toContain(416);
    expect(statuses.at(-1)).toBe(200);
  });

  it("206 whose total differs from the recorded size: starts over", async () => {
    const bytes = await servedBytes();
    const info = await mock.fileInfo({ kind: "pack", slug: SLUG });
    const dir = tempDir();
    seedPartial(dir, bytes.subarray(0, 1000), { etag: info.etag, total: info.size + 100 });
    const { code, doc } = await getJson(dir);
    expect(code).toBe(0);
    expect(doc).toMatchObject({ status: "downloaded", resumed_from: 0, sha256: info.sha256 });
    const statuses = cdnRequests(mock).map((q) => q.status);
    expect(statuses[0]).toBe(206);
    expect(statuses.at(-1)).toBe(200);
  });

  it("an expired signed CDN URL is refreshed through the API route and the download resumes", async () => {
    const bytes = await servedBytes();
    const info = await mock.fileInfo({ kind: "pack", slug: SLUG });
    const dir = tempDir();
    seedPartial(dir, bytes.subarray(0, 150_000), { etag: info.etag, total: info.size });
    mock.set({ faults: { cdnExpired: { count: 2, status: 410 } } });
    const { code, doc } = await getJson(dir);
    expect(code).toBe(0);
    expect(doc).toMatchObject({ status: "resumed", resumed_from: 150_000, sha256: info.sha256 });
    const api = mock.requests.filter((q) => q.origin === "api" && q.url.includes("/download"));
    expect(api.length).toBe(3);
    const cdn = cdnRequests(mock);
    expect(cdn.map((q) => q.status)).toEqual([410, 410, 206]);
    expect(cdn.every((q) => q.headers.range === "bytes=150000-")).toBe(true);
  });
});

describe("interruption", () => {
  /** Resolves once `run` has written `minBytes` of partial data; rejects if it ends first. */
  function waitForPartial(dir: string, minBytes: number, run: LaunchedCli): Promise<void> {
    const paths = partialPaths(dir, { kind: "pack", slug: SLUG, edition: "standard" });
    return whenInDir(
      dirname(paths.data),
      () => (statSync(paths.data, { throwIfNoEntry: false })?.size ?? 0) >= minBytes,
      { what: `${minBytes} bytes of partial data`, until: run.done },
    );
  }

  it("SIGKILL mid-download, then a re-run resumes to a byte-identical file", async () => {
    const info = await mock.fileInfo({ kind: "pack", slug: SLUG });
    const dir = tempDir();
    mock.set({ faults: { throttleBytesPerSecond: 64 * 1024 } });
    const run = launchCli(["pack", "get", SLUG], { cwd: dir, env: envFor(mock) });
    await waitForPartial(dir, 64 * 1024, run);
    run.child.kill("SIGKILL");
    const killed = await run.done;
    expect(killed.signal).toBe("SIGKILL");
    expect(existsSync(join(dir, info.filename))).toBe(false);
    mock.set({ faults: {} });
    mock.clearLog();
    const { code, doc } = await getJson(dir);
    expect(code).toBe(0);
    expect(doc.status).toBe("resumed");
    expect(Number(doc.resumed_from)).toBeGreaterThan(0);
    expect(sha256Of(join(dir, info.filename))).toBe(info.sha256);
    expect(cdnRequests(mock).at(-1)?.status).toBe(206);
  });

  it.each([
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const)(
    "%s keeps the partial data, releases the lock and exits %i",
    async (signal, exitCode) => {
      const info = await mock.fileInfo({ kind: "pack", slug: SLUG });
      const dir = tempDir();
      mock.set({ faults: { throttleBytesPerSecond: 64 * 1024 } });
      const run = launchCli(["pack", "get", SLUG], { cwd: dir, env: envFor(mock) });
      await waitForPartial(dir, 64 * 1024, run);
      run.child.kill(signal);
      const result = await run.done;
      expect(result.code).toBe(exitCode);
      expect(result.stderr).toContain("interrupted");
      expect(result.stderr).not.toContain("\u001b");
      const paths = partialPaths(dir, { kind: "pack", slug: SLUG, edition: "standard" });
      expect(statSync(paths.data).size).toBeGreaterThan(0);
      expect(existsSync(join(dir, ".svc-dl", "lock"))).toBe(false);
      expect(existsSync(join(dir, info.filename))).toBe(false);
      mock.set({ faults: {} });
      const { code, doc } = await getJson(dir);
      expect(code).toBe(0);
      expect(doc.status).toBe("resumed");
      expect(sha256Of(join(dir, info.filename))).toBe(info.sha256);
    },
  );
});
