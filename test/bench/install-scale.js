#!/usr/bin/env node
/**
 * Scale of the output directory's bookkeeping (docs/performance.md "Scale"): wall time and peak
 * RSS of `svc-dl install` of N packs (once from the local mock service, which fills the cache
 * and writes svc-dl.lock; then with every item in the cache (copied into an empty directory), the
 * same install again with every file already in place, and, with `--sync`, an up-to-date
 * `packs sync` of N packs against the local mock service. Not a test: numbers only.
 *
 * Usage: node test/bench/install-scale.js [--items 2400] [--sync] [--dir PATH]
 *   --items  number of items (repeatable: --items 2400 --items 24000); default 2400
 *   --sync   also time `packs sync` of N owned packs (first run downloads, second is timed)
 *   --dir    where the temp directories go (default: the OS temp dir)
 *   --keep   keep the install project (printed) to profile a run by hand
 *
 * Needs `npm run build` first (uses dist/). Plain ESM JavaScript, Node built-ins only.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CLI = join(ROOT, "bin", "svc-dl.js");

function parseArgs(argv) {
  const out = { items: [], sync: false, keep: false, dir: tmpdir() };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--items") out.items.push(Number(argv[++i]));
    else if (a === "--sync") out.sync = true;
    else if (a === "--keep") out.keep = true;
    else if (a === "--dir") out.dir = argv[++i];
    else throw new Error(`unknown option ${a}`);
  }
  if (out.items.length === 0) out.items.push(2400);
  return out;
}

/** Runs the CLI; resolves wall seconds and peak RSS (MiB, from /proc while it runs). */
function run(args, cwd, env) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    let peak = 0;
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    const poll = setInterval(() => {
      try {
        const m = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"));
        if (m) peak = Math.max(peak, Number(m[1]) / 1024);
      } catch {
        // exited
      }
    }, 20);
    child.on("error", reject);
    child.on("exit", (code) => {
      clearInterval(poll);
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      if (code !== 0) reject(new Error(`svc-dl ${args.join(" ")} exited ${code}: ${stderr}`));
      else resolve({ seconds, rssMiB: peak });
    });
  });
}

async function installBench(n, base, keep) {
  const mock = await startMock(n);
  const root = mkdtempSync(join(base, "svc-dl-bench-install-"));
  try {
    const width = Math.max(3, String(n).length);
    const packs = Array.from(
      { length: n },
      (_, i) => `bench-pack-${String(i + 1).padStart(width, "0")}`,
    );
    writeFileSync(join(root, "svc-dl.json"), JSON.stringify({ dir: "packs", packs }));
    const env = {
      SVC_DL_CACHE_DIR: join(root, "cache"),
      SVC_BASE_URL: mock.baseUrl,
      SVC_API_KEY: mock.apiKey,
    };
    // Setup: download every pack once (fills the cache and writes svc-dl.lock), then empty DIR.
    const first = await run(["install", "--quiet"], root, env);
    rmSync(join(root, "packs"), { recursive: true, force: true });
    const cached = await run(["install", "--quiet"], root, env);
    const inPlace = await run(["install", "--quiet"], root, env);
    return { first, cached, inPlace };
  } finally {
    await mock.close();
    if (keep) console.log(`kept ${root}`);
    else rmSync(root, { recursive: true, force: true });
  }
}

/** The local mock with `n` owned 1 KiB packs and no rate limit in the way. */
async function startMock(n) {
  const { startMockService } = await import(join(ROOT, "dist", "mock-server", "index.js"));
  const big = { quota: 10_000_000, windowSeconds: 60 };
  return startMockService({
    quiet: true,
    packSize: 1024,
    extraPacks: n,
    limits: { read: big, download: big },
  });
}

async function syncBench(n, base) {
  const mock = await startMock(Math.max(0, n - 5));
  const dir = mkdtempSync(join(base, "svc-dl-bench-sync-"));
  try {
    const env = { SVC_BASE_URL: mock.baseUrl, SVC_API_KEY: mock.apiKey };
    const first = await run(["packs", "sync", dir, "--quiet"], dir, env);
    const again = await run(["packs", "sync", dir, "--quiet"], dir, env);
    return { first, again };
  } finally {
    await mock.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (r) => `${r.seconds.toFixed(2)} s, peak RSS ${r.rssMiB.toFixed(0)} MiB`;

const opts = parseArgs(process.argv.slice(2));
for (const n of opts.items) {
  const r = await installBench(n, opts.dir, opts.keep);
  console.log(`install, ${n} items downloaded:      ${fmt(r.first)}`);
  console.log(`install, ${n} items from the cache:  ${fmt(r.cached)}`);
  console.log(`install, ${n} items already in place: ${fmt(r.inPlace)}`);
  if (opts.sync) {
    const s = await syncBench(n, opts.dir);
    console.log(`packs sync, ${n} packs, first run:   ${fmt(s.first)}`);
    console.log(`packs sync, ${n} packs, up to date:  ${fmt(s.again)}`);
  }
}
