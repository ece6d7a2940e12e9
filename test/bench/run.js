#!/usr/bin/env node
/**
 * `npm run bench`: the undici download core against curl on the same CDN URL (http and https),
 * start-up time and peak RSS against `node -e 0`, the request count of an up-to-date
 * `packs sync`, and the TLS handshakes of a 50-pack sync over https. The API is the local mock
 * service (dist/mock-server, in this process on 127.0.0.1); the downloads come from an nginx
 * origin (test/bench/nginx.js: installed with apt-get when missing; the mock's CDN when that is
 * impossible). https goes through nginx's TLS for the CDN and the TLS fronts of
 * test/bench/tls.js for the API, with a throw-away private CA (curl `--cacert`, svc-dl
 * `--ca-file`). At the end the rows of the performance targets are printed.
 * See docs/performance.md.
 *
 * Usage: node test/bench/run.js [--quick] [--sizes 512M] [--proto http|https] [--runs N]
 *          [--startup-runs N] [--startup-node 24|PATH]
 *          [--only download|deflated|startup|sync|handshakes]
 *          [--dir PATH] [--out FILE]
 *   --quick         smoke run: 64 MiB, 3 pairs, 10 start-up runs, no 4 GiB (numbers are not
 *                   comparable to the targets)
 *   --sizes         download sizes, comma-separated or repeated: bytes or 256K, 512M, 1G, 4G
 *                   (binary units); default 512M (--size is the same flag)
 *   --proto         http or https (repeatable); default both
 *   --runs          measured pairs per size and protocol (alternating svc-dl / curl); default 5
 *   --startup-runs  measured runs per start-up command (alternating); default 20 (min 10)
 *   --startup-node  a Node for the start-up part (repeatable): a major version (run through
 *                   `npx -y node@N`, the npm registry's node package) or a path; default this
 *                   Node and Node 24, whose rows the start-up budget judges
 *   --only          run one part only (repeatable: --only startup --only handshakes)
 *   --dir           where the temp directory goes (default: the OS temp dir)
 *   --out           JSON results file (default: bench-results.json in the repo root)
 *
 * Deflated: a pack of deflated entries against `curl -o f && unzip -tq f && sha256sum f`
 * (test/bench/deflated.js).
 *
 * Downloads: svc-dl `pack get` (API route → 302 → CDN; svc-dl hashes SHA-256 while it writes)
 * against `curl -sS -o FILE <signed CDN URL>`, then `openssl dgst -sha256 FILE` measured on
 * its own, so svc-dl's CPU is compared with curl's plus the hash's. Right after curl, `sync -d
 * FILE` (fdatasync) is timed too: svc-dl flushes its file to the disk before it names it, curl
 * does not, and "curl + sync -d" is what the same durability costs curl (printed beside the
 * targets, which stay against curl alone). A size is skipped with a
 * message when the temp directory's file system has less than size + 512 MiB free.
 *
 * Measurements per child process: wall time from process.hrtime around spawn → exit;
 * user+sys CPU seconds and peak RSS from GNU `/usr/bin/time -f` when present, else polled
 * from /proc/<pid>/stat and /proc/<pid>/status (VmHWM; less accurate). Medians are printed
 * and written to the JSON file. Temp files, child processes and the mock are cleaned up on
 * success, failure and Ctrl-C. Plain ESM JavaScript, Node built-ins only.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statfsSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { benchDeflated, deflatedTargetRows } from "./deflated.js";
import { writeDeflatedPack } from "./deflated-pack.js";
import { ensureNginx, startNginx } from "./nginx.js";
import { makeCert, startHttpsApiFront, startTlsPipe } from "./tls.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CLI = join(ROOT, "bin", "svc-dl.js");
const MOCK = join(ROOT, "dist", "mock-server", "index.js");
const TIME_BIN = "/usr/bin/time";
const MIB = 1024 * 1024;

/** Targets (README "Performance"), printed beside the results. */
const TARGETS = {
  /** Wall time of a download of 512 MiB or more, × curl on the same CDN URL. */
  downloadRatio: { http: 1.25, https: 1.35 },
  /**
   * CPU (user + sys) of a download against curl's plus `openssl dgst -sha256`'s: the
   * "CPU vs curl + openssl dgst" row, read as (curl + dgst) / svc-dl ≥ 0.8, i.e. svc-dl at most
   * 1.25 × their CPU.
   */
  cpuShareOfCurlDgst: 0.8,
  /** `pack get` of a 1 KiB pack, median wall × `node -e 0`'s (the start-up budget). */
  packGetRatio: 5,
  /** Peak RSS of `whoami` (the start-up budget). */
  whoamiPeakRssMiB: 90,
  /** Peak RSS of a download, CRC check, SHA-256 read-back and fsync on (cli-contract "Integrity"). */
  downloadPeakRssMiB: 100,
  /** TLS handshakes per origin (API, CDN) of a 50-pack sync over https. */
  handshakesPerOrigin: 2,
  versionRatio: 1.3,
  helpRatio: 2,
  /** The Node major whose start-up rows the budget judges; others are printed beside it. */
  startupBudgetNode: 24,
  syncListRequests: 2,
  syncDownloadRequests: 0,
  syncWallSeconds: 1,
};

/** Rate-limit budgets large enough that no bench run is ever paced or refused. */
const BIG_LIMITS = {
  read: { quota: 1_000_000, windowSeconds: 60 },
  download: { quota: 1_000_000, windowSeconds: 60 },
  public: { quota: 1_000_000, windowSeconds: 60 },
  auth: { quota: 1_000_000, windowSeconds: 60 },
};

// ---------------------------------------------------------------------------------------------
// options

/** Parses `256M`, `1G`, `4GiB`, `1048576` into bytes (binary units). */
function parseSize(text) {
  const m = /^(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?$/i.exec(String(text).trim());
  if (!m) throw new Error(`--size: expected bytes or a number with K/M/G/T, got "${text}"`);
  const mult = { "": 1, k: 1024, m: MIB, g: 1024 * MIB, t: 1024 * 1024 * MIB }[m[2].toLowerCase()];
  const n = Math.round(Number(m[1]) * mult);
  if (!Number.isSafeInteger(n) || n < 1024) throw new Error("--size: at least 1K");
  return n;
}

function parseArgs(argv) {
  const opts = {
    sizes: [],
    protos: new Set(),
    quick: false,
    runs: 5,
    startupRuns: 20,
    startupNodes: [],
    only: new Set(),
    serve: false,
    dir: tmpdir(),
    out: join(ROOT, "bench-results.json"),
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const [flag, inline] = a.startsWith("--") && a.includes("=") ? a.split(/=(.*)/s) : [a];
    const value = () => {
      if (inline !== undefined) return inline;
      const v = argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    const whole = (v, min) => {
      if (!/^\d+$/.test(v) || Number(v) < min) throw new Error(`${flag}: a whole number ≥ ${min}`);
      return Number(v);
    };
    switch (flag) {
      case "--quick":
        opts.quick = true;
        break;
      case "--size":
      case "--sizes":
        for (const part of value().split(",")) opts.sizes.push(parseSize(part));
        break;
      case "--proto": {
        const v = value();
        if (v !== "http" && v !== "https") throw new Error("--proto: http or https");
        opts.protos.add(v);
        break;
      }
      case "--runs":
        opts.runs = whole(value(), 1);
        break;
      case "--startup-runs":
        opts.startupRuns = whole(value(), 10);
        break;
      case "--startup-node":
        opts.startupNodes.push(value());
        break;
      case "--only": {
        const v = value();
        if (!["download", "deflated", "startup", "sync", "handshakes"].includes(v)) {
          throw new Error("--only: download, deflated, startup, sync or handshakes");
        }
        opts.only.add(v);
        break;
      }
      case "--dir":
        opts.dir = value();
        break;
      case "--serve":
        opts.serve = true;
        break;
      case "--out":
        opts.out = value();
        break;
      case "-h":
      case "--help":
        process.stdout.write(
          "usage: node test/bench/run.js [--quick] [--sizes 512M] [--proto http|https] [--runs 5] [--startup-runs 20] [--startup-node 24|PATH] [--only download|deflated|startup|sync|handshakes] [--dir PATH] [--out FILE] [--serve]\n",
        );
        process.exit(0);
        break;
      default:
        throw new Error(`unknown option ${a}`);
    }
  }
  if (opts.quick) {
    if (opts.sizes.length === 0) opts.sizes.push(64 * MIB);
    const given = (flag) => argv.some((a) => a === flag || a.startsWith(`${flag}=`));
    if (!given("--runs")) opts.runs = 3;
    if (!given("--startup-runs")) opts.startupRuns = 10;
  }
  if (opts.sizes.length === 0) opts.sizes.push(512 * MIB);
  if (opts.protos.size === 0) opts.protos = new Set(["http", "https"]);
  return opts;
}

// ---------------------------------------------------------------------------------------------
// cleanup: every resource registers here; run on exit paths and on SIGINT/SIGTERM

const cleanups = [];
let activeChild;

async function cleanupAll() {
  if (activeChild && activeChild.exitCode === null) activeChild.kill("SIGKILL");
  while (cleanups.length > 0) {
    const fn = cleanups.pop();
    try {
      await fn();
    } catch {
      // best effort
    }
  }
}

for (const sig of ["SIGINT", "SIGTERM"]) {
  process.once(sig, () => {
    process.stderr.write(`\nbench: ${sig}, cleaning up\n`);
    void cleanupAll().finally(() => process.exit(sig === "SIGINT" ? 130 : 143));
  });
}

// ---------------------------------------------------------------------------------------------
// measuring one child process

const HAVE_TIME = (() => {
  try {
    return statSync(TIME_BIN).isFile();
  } catch {
    return false;
  }
})();

const median = (xs) => {
  const s = xs.filter((x) => typeof x === "number" && Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return null;
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

/** Reads user+sys CPU seconds and VmHWM (KiB) of a live pid from /proc (fallback path). */
function readProc(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14, 15)
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const hwm = /VmHWM:\s+(\d+)\s+kB/.exec(status);
    return { cpu: ticks / 100, rssKiB: hwm ? Number(hwm[1]) : null };
  } catch {
    return null;
  }
}

/**
 * Runs `cmd args` and resolves `{ code, wall (s), cpu (s user+sys), rssMiB, stderr (tail),
 * stdout (when captured) }`. Never rejects for a non-zero exit; rejects only if the command
 * cannot be started. Killed after `timeoutMs`.
 */
function measure(cmd, args, { env, cwd = ROOT, timeoutMs = 120_000, captureStdout = false } = {}) {
  return new Promise((resolve, reject) => {
    let timeFile;
    let file = cmd;
    let argv = args;
    if (HAVE_TIME) {
      timeFile = join(state.tmp, `time-${process.hrtime.bigint()}.txt`);
      file = TIME_BIN;
      argv = ["-f", "%U %S %M", "-o", timeFile, cmd, ...args];
    }
    const start = process.hrtime.bigint();
    const child = spawn(file, argv, {
      env,
      cwd,
      stdio: ["ignore", captureStdout ? "pipe" : "ignore", "pipe"],
    });
    activeChild = child;
    let stderr = "";
    let stdout = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (d) => {
      stderr = (stderr + d).slice(-4000);
    });
    if (captureStdout) {
      child.stdout.setEncoding("utf8");
      child.stdout.on("data", (d) => {
        stdout = (stdout + d).slice(-100_000);
      });
    }
    let polled = null;
    const poll = HAVE_TIME
      ? undefined
      : setInterval(() => {
          const p = readProc(child.pid);
          if (p) polled = p;
        }, 10);
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("error", (err) => {
      clearTimeout(timer);
      if (poll) clearInterval(poll);
      reject(err);
    });
    child.once("close", (code, signal) => {
      const wall = Number(process.hrtime.bigint() - start) / 1e9;
      clearTimeout(timer);
      if (poll) clearInterval(poll);
      activeChild = undefined;
      let cpu = null;
      let rssMiB = null;
      if (HAVE_TIME && timeFile) {
        try {
          const lines = readFileSync(timeFile, "utf8").trim().split("\n");
          const [u, s, m] = (lines[lines.length - 1] ?? "").trim().split(/\s+/).map(Number);
          if (Number.isFinite(u) && Number.isFinite(s)) cpu = u + s;
          if (Number.isFinite(m)) rssMiB = m / 1024;
        } catch {
          // no numbers for this run
        }
        rmSync(timeFile, { force: true });
      } else if (polled) {
        cpu = polled.cpu;
        rssMiB = polled.rssKiB === null ? null : polled.rssKiB / 1024;
      }
      resolve({ code: signal ? 128 : code, signal, wall, cpu, rssMiB, stderr, stdout });
    });
  });
}

/** A clean child environment: no inherited SVC_* or colour settings; its own config dir. */
function childEnv(extra = {}) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith("SVC_") || k === "NO_COLOR" || k === "FORCE_COLOR") continue;
    if (k.startsWith("npm_") || k === "NODE_OPTIONS") continue;
    env[k] = v;
  }
  env.SVC_DL_CONFIG_DIR = join(state.tmp, "config");
  return { ...env, ...extra };
}

function sha256File(path) {
  return new Promise((resolve, reject) => {
    const h = createHash("sha256");
    createReadStream(path, { highWaterMark: 1 << 20 })
      .on("data", (d) => h.update(d))
      .on("error", reject)
      .on("end", () => resolve(h.digest("hex")));
  });
}

/** The line of a child's stderr that says what went wrong (first `error…` line, else the last). */
function errorLine(text) {
  const lines = text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  return (lines.find((l) => /^error\b/i.test(l)) ?? lines[lines.length - 1] ?? "").slice(0, 160);
}

function fmt(n, digits = 2) {
  return n === null || n === undefined ? "—" : n.toFixed(digits);
}

function verdict(ok) {
  return ok === null ? "n/a" : ok ? "ok" : "MISS";
}

function printTable(headers, rows) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) =>
    cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i])));
  process.stdout.write(`  ${line(headers).join("  ")}\n`);
  for (const r of rows) process.stdout.write(`  ${line(r).join("  ")}\n`);
}

// ---------------------------------------------------------------------------------------------
// mock service

async function startMock(options) {
  const { startMockService } = await import(MOCK);
  const mock = await startMockService({ quiet: true, limits: BIG_LIMITS, ...options });
  cleanups.push(() => mock.close());
  return mock;
}

/** A mock whose demo account owns exactly `count` packs of `packSize` bytes (fixture + extra). */
async function startMockOwning(count, packSize) {
  const probe = await startMock({ packSize });
  const owned = (await apiGet(probe, "packs?limit=1")).pagination?.total;
  await probe.close();
  cleanups.splice(cleanups.length - 1, 1);
  const fixtureOwned = typeof owned === "number" ? owned : 0;
  return startMock({ packSize, extraPacks: Math.max(0, count - fixtureOwned) });
}

async function apiGet(mock, path) {
  const res = await fetch(`${mock.baseUrl}/api/v1/${path}`, {
    headers: { authorization: `Bearer ${mock.apiKey}` },
  });
  if (!res.ok) throw new Error(`mock GET ${path}: HTTP ${res.status}`);
  return res.json();
}

/** The signed CDN URL of a download route: the 302 Location (the key never goes to the CDN). */
async function cdnUrlOf(mock, route) {
  const res = await fetch(route, {
    redirect: "manual",
    headers: { authorization: `Bearer ${mock.apiKey}` },
  });
  await res.arrayBuffer();
  const loc = res.headers.get("location");
  if (res.status < 300 || res.status > 399 || !loc) {
    throw new Error(`download route answered HTTP ${res.status} without a redirect`);
  }
  return new URL(loc, route).href;
}

/** Exit code of `svc-dl <args> --help`: 0 when the command exists. */
async function commandExists(words) {
  const r = await measure(process.execPath, [CLI, ...words, "--help"], {
    env: childEnv(),
    captureStdout: true,
  });
  // commander prints the root help (exit 0) for an unknown word only with some settings;
  // require the command's own usage line too.
  return r.code === 0 && r.stdout.includes(`svc-dl ${words.join(" ")}`);
}

// ---------------------------------------------------------------------------------------------
// start-up bench

/**
 * The Node binary for a `--startup-node` value: a path as given, a major version through
 * `npx -y node@N` (its real binary, so npx's own start is not measured).
 */
async function nodeBinary(spec) {
  if (!/^\d+$/.test(spec)) return spec;
  if (process.versions.node.split(".")[0] === spec) return process.execPath;
  const r = await measure("npx", ["-y", `node@${spec}`, "-p", "process.execPath"], {
    env: process.env,
    captureStdout: true,
    timeoutMs: 300_000,
  });
  const path = r.stdout.trim();
  if (r.code !== 0 || !path) throw new Error(`npx -y node@${spec} failed (exit ${r.code})`);
  return path;
}

/**
 * The start-up part on each Node (`--startup-node`, default this one and Node 24):
 * `{ results, node, byNode }`, `results` being the rows of the Node the budget judges.
 */
async function benchStartup(opts) {
  const specs = opts.startupNodes.length
    ? opts.startupNodes
    : [process.execPath, String(TARGETS.startupBudgetNode)];
  const mock = await startMock({ packSize: 1024 });
  const byNode = [];
  for (const spec of [...new Set(specs)]) {
    let bin;
    try {
      bin = await nodeBinary(spec);
    } catch (err) {
      process.stdout.write(`\nstart-up on Node ${spec}: skipped (${err.message})\n`);
      continue;
    }
    if (byNode.some((b) => b.bin === bin)) continue;
    const version = (
      await measure(bin, ["-p", "process.versions.node"], { env: process.env, captureStdout: true })
    ).stdout.trim();
    byNode.push({ bin, node: version, results: await benchStartupOn(bin, version, mock, opts) });
  }
  const judged =
    byNode.find((b) => b.node.split(".")[0] === String(TARGETS.startupBudgetNode)) ?? byNode[0];
  return { node: judged?.node ?? null, results: judged?.results ?? [], byNode };
}

/** The start-up rows of one Node binary `node` (version `version`) against the mock. */
async function benchStartupOn(node, version, mock, opts) {
  const env = childEnv({ SVC_BASE_URL: mock.baseUrl, SVC_API_KEY: mock.apiKey });
  const getDir = join(state.tmp, "startup-get");
  const cases = [
    { name: "node -e 0", args: () => ["-e", "0"] },
    { name: "svc-dl --version", args: () => [CLI, "--version"] },
    { name: "svc-dl --help", args: () => [CLI, "--help"] },
    { name: "svc-dl whoami", args: () => [CLI, "whoami"] },
    {
      name: "svc-dl pack get (1 KiB)",
      args: () => {
        rmSync(getDir, { recursive: true, force: true }); // a fresh directory, untimed
        return [CLI, "pack", "get", "low-poly-forest", "-o", `${getDir}/`, "--quiet"];
      },
    },
  ];
  for (const c of cases) c.samples = [];
  // one warm-up round (page cache), then alternate
  for (const c of cases) await measure(node, c.args(), { env });
  for (let i = 0; i < opts.startupRuns; i++) {
    for (const c of i % 2 ? [...cases].reverse() : cases) {
      const r = await measure(node, c.args(), { env, timeoutMs: 30_000 });
      if (r.code !== 0) {
        c.error = `exit ${r.code}: ${errorLine(r.stderr)}`;
      }
      c.samples.push({ wall: r.wall, cpu: r.cpu, rssMiB: r.rssMiB });
    }
  }
  const base = median(cases[0].samples.map((s) => s.wall));
  const baseCpu = median(cases[0].samples.map((s) => s.cpu));
  const target = {
    "svc-dl --version": TARGETS.versionRatio,
    "svc-dl --help": TARGETS.helpRatio,
    "svc-dl pack get (1 KiB)": TARGETS.packGetRatio,
  };
  const results = cases.map((c) => {
    const wall = median(c.samples.map((s) => s.wall));
    const cpu = median(c.samples.map((s) => s.cpu));
    const ratio = wall !== null && base ? wall / base : null;
    const t = target[c.name] ?? null;
    const maxRss = Math.max(...c.samples.map((s) => s.rssMiB ?? 0));
    const rssTarget = c.name === "svc-dl whoami" ? TARGETS.whoamiPeakRssMiB : null;
    return {
      name: c.name,
      runs: c.samples.length,
      medianWallMs: wall === null ? null : wall * 1000,
      medianCpuMs: cpu === null ? null : cpu * 1000,
      medianRssMiB: median(c.samples.map((s) => s.rssMiB)),
      maxRssMiB: maxRss > 0 ? maxRss : null,
      rssTarget,
      rssMet: rssTarget === null || maxRss <= 0 ? null : maxRss <= rssTarget,
      ratio,
      cpuRatio: cpu !== null && baseCpu ? cpu / baseCpu : null,
      target: t,
      met: t === null || ratio === null ? null : ratio <= t,
      error: c.error ?? null,
      samplesWallMs: c.samples.map((s) => Math.round(s.wall * 10000) / 10),
    };
  });
  process.stdout.write(
    `\nstart-up on Node ${version} (${opts.startupRuns} runs each, alternating; medians)\n`,
  );
  printTable(
    ["command", "wall ms", "CPU ms", "RSS MiB", "max RSS", "× node -e 0", "target", ""],
    results.map((r) => [
      r.name,
      fmt(r.medianWallMs, 1),
      fmt(r.medianCpuMs, 0),
      fmt(r.medianRssMiB, 1),
      fmt(r.maxRssMiB, 1),
      r.ratio === null ? "—" : `${r.ratio.toFixed(2)}×`,
      r.target !== null ? `≤ ${r.target}×` : r.rssTarget !== null ? `≤ ${r.rssTarget} MiB` : "",
      r.error
        ? `error: ${r.error}`
        : r.target !== null
          ? verdict(r.met)
          : r.rssTarget !== null
            ? verdict(r.rssMet)
            : "",
    ]),
  );
  return results;
}

// ---------------------------------------------------------------------------------------------
// sync bench

async function benchSync() {
  if (!(await commandExists(["packs", "sync"]))) {
    process.stdout.write("\nsync bench: skipped (packs sync not implemented)\n");
    return { skipped: "packs sync not implemented" };
  }
  const mock = await startMockOwning(200, 4096);
  const total = (await apiGet(mock, "packs?limit=1")).pagination?.total ?? null;
  const dir = mkdtempSync(join(state.tmp, "sync-"));
  const env = childEnv({ SVC_BASE_URL: mock.baseUrl, SVC_API_KEY: mock.apiKey });
  const args = [CLI, "packs", "sync", dir, "--no-progress", "--quiet"];
  const fill = await measure(process.execPath, args, { env, timeoutMs: 240_000 });
  const result = {
    ownedPacks: total,
    packSizeBytes: 4096,
    fill: { code: fill.code, wallSeconds: fill.wall },
  };
  if (fill.code !== 0) {
    result.error = `first sync exit ${fill.code}: ${errorLine(fill.stderr)}`;
  }
  mock.clearLog();
  const r = await measure(process.execPath, args, { env, timeoutMs: 120_000 });
  const log = [...mock.requests];
  const isList = (e) => e.origin === "api" && /^\/api\/v1\/packs(\?|$)/.test(e.url);
  const isDownload = (e) => e.origin === "cdn" || /\/download(\?|$)/.test(e.url);
  Object.assign(result, {
    code: r.code,
    wallSeconds: r.wall,
    cpuSeconds: r.cpu,
    peakRssMiB: r.rssMiB,
    requests: {
      total: log.length,
      list: log.filter(isList).length,
      download: log.filter(isDownload).length,
      other: log.filter((e) => !isList(e) && !isDownload(e)).map((e) => `${e.method} ${e.url}`),
    },
  });
  if (r.code !== 0 && !result.error) result.error = `exit ${r.code}: ${errorLine(r.stderr)}`;
  result.met = {
    list: result.requests.list <= TARGETS.syncListRequests,
    download: result.requests.download === TARGETS.syncDownloadRequests,
    wall: r.wall < TARGETS.syncWallSeconds,
  };
  process.stdout.write(
    `\nsync of ${total} up-to-date packs (${fill.code === 0 ? `filled in ${fmt(fill.wall)} s` : "fill FAILED"})\n`,
  );
  printTable(
    ["measure", "value", "target", ""],
    [
      [
        "list requests",
        result.requests.list,
        `${TARGETS.syncListRequests}`,
        verdict(result.met.list),
      ],
      [
        "download requests",
        result.requests.download,
        `${TARGETS.syncDownloadRequests}`,
        verdict(result.met.download),
      ],
      ["other requests", result.requests.other.length, "", ""],
      ["wall s", fmt(r.wall), `< ${TARGETS.syncWallSeconds}`, verdict(result.met.wall)],
      ["CPU s", fmt(r.cpu), "", ""],
      ["peak RSS MiB", fmt(r.rssMiB, 1), "", ""],
      ["exit code", r.code, "0", verdict(r.code === 0)],
    ],
  );
  if (result.error) process.stdout.write(`  error: ${result.error}\n`);
  return result;
}

// ---------------------------------------------------------------------------------------------
// https fronts (test/bench/tls.js)

/** The private CA of this run, made once: `{ key, cert, caFile }`. */
function benchCert() {
  if (state.cert === undefined) state.cert = makeCert(state.tmp);
  if (!state.cert) throw new Error("openssl could not make the private CA for https");
  return state.cert;
}

/**
 * The service as a client sees it for `proto`: `{ baseUrl, caArgs, cdn, api }`. For https,
 * an https API front and a TLS pipe in front of the CDN (their handshake counters in `api`
 * and `cdn`); for http, the mock itself.
 */
async function serviceFor(mock, proto) {
  if (proto === "http") {
    return { baseUrl: mock.baseUrl, cdnUrl: mock.cdnUrl, caArgs: [], curlArgs: [] };
  }
  const cert = benchCert();
  const cdn = await startTlsPipe(mock.cdnUrl, cert);
  cleanups.push(() => cdn.close());
  const api = await startHttpsApiFront(mock, cdn.url, cert);
  cleanups.push(() => api.close());
  return {
    baseUrl: api.url,
    cdnUrl: cdn.url,
    caArgs: ["--ca-file", cert.caFile],
    curlArgs: ["--cacert", cert.caFile],
    api,
    cdn,
  };
}

/**
 * The service for the download part: the mock's API (behind an http or https front that turns
 * its CDN redirects to nginx) and an nginx origin serving a copy of the pack at the mock's CDN
 * path, or the file `makeFile(path)` writes there instead (the deflated row's pack). Falls back
 * to {@link serviceFor} (the mock's own CDN) when nginx is unavailable.
 */
async function downloadService(mock, proto, route, makeFile) {
  const bin = ensureNginx((line) => process.stdout.write(`  ${line}\n`));
  if (!bin) return { ...(await serviceFor(mock, proto)), origin: "the mock's CDN (no nginx)" };
  const signed = await cdnUrlOf(mock, route);
  const path = decodeURIComponent(new URL(signed).pathname);
  const root = join(state.tmp, "cdn-root");
  const file = join(root, ...path.split("/"));
  if (makeFile && !existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    makeFile(file);
  } else if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    const r = await measure("curl", ["-sS", "-o", file, signed], { timeoutMs: 600_000 });
    if (r.code !== 0) throw new Error(`could not copy the pack for nginx: ${errorLine(r.stderr)}`);
  }
  const tls = proto === "https" ? benchCert() : null;
  const nginx = await startNginx(bin, { root, dir: join(state.tmp, `nginx-${proto}`), tls });
  cleanups.push(() => nginx.close());
  const api = await startHttpsApiFront(mock, nginx.url, tls);
  cleanups.push(() => api.close());
  return {
    baseUrl: api.url,
    cdnUrl: nginx.url,
    caArgs: tls ? ["--ca-file", tls.caFile] : [],
    curlArgs: tls ? ["--cacert", tls.caFile] : [],
    origin: `nginx ${nginx.url}`,
  };
}

// ---------------------------------------------------------------------------------------------
// TLS handshakes of a sync over https

async function benchHandshakes() {
  if (!(await commandExists(["packs", "sync"]))) {
    process.stdout.write("\nhandshake bench: skipped (packs sync not implemented)\n");
    return { skipped: "packs sync not implemented" };
  }
  const mock = await startMockOwning(50, 8 * 1024);
  const owned = (await apiGet(mock, "packs?limit=1")).pagination?.total ?? null;
  const svc = await serviceFor(mock, "https");
  const dir = mkdtempSync(join(state.tmp, "tls-sync-"));
  const env = childEnv({ SVC_BASE_URL: svc.baseUrl, SVC_API_KEY: mock.apiKey });
  const args = [CLI, "packs", "sync", dir, "--no-progress", "--quiet", ...svc.caArgs];
  const r = await measure(process.execPath, args, { env, timeoutMs: 240_000 });
  const result = {
    ownedPacks: owned,
    packSizeBytes: 8 * 1024,
    code: r.code,
    wallSeconds: r.wall,
    cpuSeconds: r.cpu,
    peakRssMiB: r.rssMiB,
    handshakes: { api: svc.api.handshakes(), cdn: svc.cdn.handshakes() },
  };
  if (r.code !== 0) result.error = `exit ${r.code}: ${errorLine(r.stderr)}`;
  result.met = {
    api: result.handshakes.api <= TARGETS.handshakesPerOrigin,
    cdn: result.handshakes.cdn <= TARGETS.handshakesPerOrigin,
  };
  const max = `≤ ${TARGETS.handshakesPerOrigin}`;
  process.stdout.write(`\nsync of ${owned} small packs over https (first sync, all downloaded)\n`);
  printTable(
    ["measure", "value", "target", ""],
    [
      ["TLS handshakes, API", result.handshakes.api, max, verdict(result.met.api)],
      ["TLS handshakes, CDN", result.handshakes.cdn, max, verdict(result.met.cdn)],
      ["wall s", fmt(r.wall), "", ""],
      ["CPU s", fmt(r.cpu), "", ""],
      ["peak RSS MiB", fmt(r.rssMiB, 1), "", ""],
      ["exit code", r.code, "0", verdict(r.code === 0)],
    ],
  );
  if (result.error) process.stdout.write(`  error: ${result.error}\n`);
  return result;
}

// ---------------------------------------------------------------------------------------------
// download bench

/** Free bytes for an unprivileged user on the file system of `dir`, or null if unknown. */
function freeBytes(dir) {
  try {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return null;
  }
}

async function benchDownload(opts) {
  const out = [];
  for (const size of opts.sizes) {
    const free = freeBytes(state.tmp);
    if (free !== null && free < size + 512 * MIB) {
      const msg = `skipped: ${fmt(free / MIB, 0)} MiB free in ${state.tmp}, ${fmt(size / MIB, 0)} MiB + 512 MiB needed`;
      process.stdout.write(`\ndownload ${fmt(size / MIB, 0)} MiB: ${msg}\n`);
      out.push({ sizeBytes: size, skipped: msg });
      continue;
    }
    const mock = await startMock({ packSize: size, signedUrlTtlSeconds: 3600 });
    for (const proto of opts.protos) {
      out.push(await benchDownloadOne(opts, mock, size, proto));
    }
  }
  return out;
}

/** Alternating pairs (svc-dl, curl + openssl dgst) of one size over one protocol. */
async function benchDownloadOne(opts, mock, size, proto) {
  const packs = (await apiGet(mock, "packs?limit=100")).data;
  const pack = packs.find((p) => p.slug === "low-poly-forest") ?? packs[0];
  if (!pack) throw new Error("the mock lists no owned pack");
  const slug = pack.slug;
  const mib = fmt(size / MIB, 0);
  process.stdout.write(`\ndownload ${mib} MiB over ${proto}: preparing pack "${slug}"…\n`);
  const info = await mock.fileInfo({ kind: "pack", slug });
  if (info.size !== size) throw new Error(`mock serves ${info.size} bytes, wanted ${size}`);
  const route = pack.downloads.bundle; // on the mock itself: the bench asks it over http
  const svc = await downloadService(mock, proto, route);
  process.stdout.write(`download ${mib} MiB over ${proto}: origin ${svc.origin}\n`);
  const outDir = mkdtempSync(join(state.tmp, "dl-"));
  const outFile = join(outDir, info.filename);
  const clean = () => {
    rmSync(outFile, { force: true });
    rmSync(join(outDir, ".svc-dl"), { recursive: true, force: true });
  };
  const env = childEnv({ SVC_BASE_URL: svc.baseUrl, SVC_API_KEY: mock.apiKey });
  const timeoutMs = Math.max(120_000, (size / (5 * MIB)) * 1000);
  const svcArgs = ["pack", "get", slug, "-o", `${outDir}/`, "--force", "--no-progress", "--quiet"];
  const tools = [
    {
      name: "svc-dl",
      label: "svc-dl pack get",
      cmd: () => [process.execPath, [CLI, ...svcArgs, ...svc.caArgs]],
    },
    {
      name: "curl",
      label: "curl -sS -o",
      cmd: async () => [
        "curl",
        [
          "-sS",
          ...svc.curlArgs,
          "-o",
          outFile,
          (await cdnUrlOf(mock, route)).replace(mock.cdnUrl, svc.cdnUrl),
        ],
      ],
      hash: true,
    },
  ];
  for (const t of tools) {
    t.samples = [];
    t.errors = [];
  }
  const runOnce = async (t, check) => {
    clean();
    const [file, args] = await t.cmd();
    const r = await measure(file, args, { env, timeoutMs });
    let error = null;
    let dgst = null;
    let durable = null;
    if (r.code !== 0) error = `exit ${r.code}: ${errorLine(r.stderr)}`;
    else if (!existsSync(outFile)) error = `no file at ${outFile}`;
    else if (statSync(outFile).size !== size) error = `size ${statSync(outFile).size} ≠ ${size}`;
    else if (t.hash) {
      // the same durability as svc-dl's (its file is on the disk before it exits), timed alone
      const synced = await measure("sync", ["-d", outFile], { timeoutMs });
      if (synced.code === 0) durable = synced;
      dgst = await measure("openssl", ["dgst", "-sha256", outFile], {
        timeoutMs,
        captureStdout: true,
      });
      if (dgst.code !== 0) error = `openssl dgst exit ${dgst.code}`;
      else if (!dgst.stdout.includes(info.sha256)) error = "SHA-256 mismatch (openssl dgst)";
    } else if (check && (await sha256File(outFile)) !== info.sha256) error = "SHA-256 mismatch";
    clean();
    return { r, dgst, durable, error };
  };
  // warm-up (not counted): fills the page cache and the server's layout cache
  process.stdout.write(`download ${mib} MiB over ${proto}: warm-up\n`);
  await runOnce(tools[1], false);
  for (let i = 0; i < opts.runs; i++) {
    const order = i % 2 ? [...tools].reverse() : tools;
    for (const t of order) {
      if (t.disabled) continue;
      const { r, dgst, durable, error } = await runOnce(t, i === 0);
      if (error) {
        t.errors.push(error);
        process.stdout.write(`  ${t.name} run ${i + 1}: FAILED (${error})\n`);
        if (i === 0) t.disabled = true; // a broken tool is not retried on every run
        continue;
      }
      const sample = { wall: r.wall, cpu: r.cpu, rssMiB: r.rssMiB };
      if (dgst) Object.assign(sample, { dgstWall: dgst.wall, dgstCpu: dgst.cpu });
      if (durable) Object.assign(sample, { syncWall: durable.wall });
      t.samples.push(sample);
      const synced = durable ? `sync -d ${fmt(durable.wall)} s, ` : "";
      const extra = dgst
        ? ` (+ ${synced}openssl dgst ${fmt(dgst.wall)} s, CPU ${fmt(dgst.cpu)} s)`
        : "";
      process.stdout.write(
        `  ${t.name.padEnd(6)} run ${i + 1}: ${fmt(r.wall)} s, ${fmt(size / MIB / r.wall, 0)} MiB/s, CPU ${fmt(r.cpu)} s, RSS ${fmt(r.rssMiB, 1)} MiB${extra}\n`,
      );
    }
  }
  return summarizeDownload(opts, size, proto, slug, tools);
}

function summarizeDownload(opts, size, proto, slug, tools) {
  const summary = {};
  for (const t of tools) {
    const wall = median(t.samples.map((s) => s.wall));
    summary[t.name] = {
      command: t.label,
      runs: t.samples.length,
      medianWallSeconds: wall,
      mibPerSecond: wall ? size / MIB / wall : null,
      medianCpuSeconds: median(t.samples.map((s) => s.cpu)),
      medianDgstCpuSeconds: t.hash ? median(t.samples.map((s) => s.dgstCpu)) : undefined,
      medianDurableWallSeconds: t.hash
        ? median(t.samples.filter((s) => s.syncWall !== undefined).map((s) => s.wall + s.syncWall))
        : undefined,
      medianPeakRssMiB: median(t.samples.map((s) => s.rssMiB)),
      maxPeakRssMiB: t.samples.length ? Math.max(...t.samples.map((s) => s.rssMiB ?? 0)) : null,
      errors: t.errors,
      samples: t.samples,
    };
  }
  const svc = summary["svc-dl"];
  const curl = summary.curl;
  svc.ratioToCurl =
    svc.medianWallSeconds && curl.medianWallSeconds
      ? svc.medianWallSeconds / curl.medianWallSeconds
      : null;
  svc.ratioToDurableCurl =
    svc.medianWallSeconds && curl.medianDurableWallSeconds
      ? svc.medianWallSeconds / curl.medianDurableWallSeconds
      : null;
  const cpuBudget =
    curl.medianCpuSeconds !== null && curl.medianDgstCpuSeconds !== null
      ? curl.medianCpuSeconds + curl.medianDgstCpuSeconds
      : null;
  // the wall-time target is set for 512 MiB; smaller runs (--quick) are shown without a verdict
  const ratioTarget = size >= 512 * MIB ? TARGETS.downloadRatio[proto] : null;
  const met = {
    ratio: ratioTarget === null || svc.ratioToCurl === null ? null : svc.ratioToCurl <= ratioTarget,
    cpu:
      cpuBudget === null || svc.medianCpuSeconds === null
        ? null
        : cpuBudget / svc.medianCpuSeconds >= TARGETS.cpuShareOfCurlDgst,
    peakRss:
      svc.maxPeakRssMiB === null || svc.runs === 0
        ? null
        : svc.maxPeakRssMiB <= TARGETS.downloadPeakRssMiB,
  };
  process.stdout.write(
    `\ndownload of ${fmt(size / MIB, 0)} MiB over ${proto}, loopback (${opts.runs} pairs, alternating; medians)\n`,
  );
  printTable(
    ["measure", "svc-dl", "curl", "target", ""],
    [
      [
        "wall s",
        fmt(svc.medianWallSeconds),
        fmt(curl.medianWallSeconds),
        ratioTarget === null ? "(set for 512 MiB)" : `≤ ${ratioTarget}× curl`,
        svc.ratioToCurl === null
          ? "—"
          : `${svc.ratioToCurl.toFixed(2)}× ${ratioTarget === null ? "" : verdict(met.ratio)}`,
      ],
      [
        "wall s, curl + sync -d FILE",
        fmt(svc.medianWallSeconds),
        fmt(curl.medianDurableWallSeconds),
        "(no target)",
        svc.ratioToDurableCurl === null ? "—" : `${svc.ratioToDurableCurl.toFixed(2)}×`,
      ],
      ["MiB/s", fmt(svc.mibPerSecond, 0), fmt(curl.mibPerSecond, 0), "", ""],
      [
        "CPU s (curl: + openssl dgst)",
        fmt(svc.medianCpuSeconds),
        `${fmt(curl.medianCpuSeconds)} + ${fmt(curl.medianDgstCpuSeconds)}`,
        `≤ ${fmt(1 / TARGETS.cpuShareOfCurlDgst)}× (curl + dgst)`,
        verdict(met.cpu),
      ],
      [
        "peak RSS MiB (max)",
        fmt(svc.maxPeakRssMiB, 1),
        fmt(curl.maxPeakRssMiB, 1),
        `≤ ${TARGETS.downloadPeakRssMiB}`,
        verdict(met.peakRss),
      ],
    ],
  );
  for (const t of [svc, curl]) {
    if (t.errors.length) process.stdout.write(`  ${t.command}: ${t.errors.length} failed run(s)\n`);
  }
  return {
    sizeBytes: size,
    proto,
    slug,
    runs: opts.runs,
    cpuBudgetSeconds: cpuBudget,
    tools: summary,
    met,
  };
}

// ---------------------------------------------------------------------------------------------

/** The rows of the performance targets (docs/performance.md) from this run's results. */
function printTargetRows(results) {
  const rows = [];
  const downloads = Array.isArray(results.download) ? results.download : [];
  for (const d of downloads.filter((x) => x.tools)) {
    const svc = d.tools["svc-dl"];
    const mib = fmt(d.sizeBytes / MIB, 0);
    rows.push([
      `${mib} MiB over ${d.proto}, wall vs curl`,
      svc.ratioToCurl === null ? "—" : `${svc.ratioToCurl.toFixed(2)} ×`,
      `≤ ${TARGETS.downloadRatio[d.proto]} ×`,
    ]);
    rows.push([
      `${mib} MiB over ${d.proto}, wall vs curl + sync -d (as durable)`,
      svc.ratioToDurableCurl ? `${svc.ratioToDurableCurl.toFixed(2)} ×` : "—",
      "(no target)",
    ]);
    const cpu = svc.medianCpuSeconds;
    rows.push([
      `${mib} MiB over ${d.proto}, CPU: (curl + openssl dgst) / svc-dl`,
      cpu && d.cpuBudgetSeconds ? `${(d.cpuBudgetSeconds / cpu).toFixed(2)} ×` : "—",
      `≥ ${TARGETS.cpuShareOfCurlDgst} ×`,
    ]);
    rows.push([
      `${mib} MiB over ${d.proto}, peak RSS`,
      `${fmt(svc.maxPeakRssMiB, 1)} MiB`,
      `≤ ${TARGETS.downloadPeakRssMiB} MiB`,
    ]);
  }
  for (const { node, results: startup } of results.startup?.byNode ?? []) {
    const judged = node.split(".")[0] === String(TARGETS.startupBudgetNode);
    const who = startup.find((r) => r.name === "svc-dl whoami");
    if (who) {
      rows.push([
        `whoami, peak RSS (Node ${node})`,
        `${fmt(who.maxRssMiB, 1)} MiB`,
        `≤ ${TARGETS.whoamiPeakRssMiB} MiB`,
      ]);
    }
    for (const r of startup.filter((x) => x.target !== null)) {
      rows.push([
        `${r.name.replace(/^svc-dl /, "")}, wall × node -e 0 (Node ${node})`,
        r.ratio === null ? "—" : `${r.ratio.toFixed(2)} ×`,
        judged ? `≤ ${r.target} ×` : `(budget on Node ${TARGETS.startupBudgetNode})`,
      ]);
    }
  }
  rows.push(...deflatedTargetRows(results.deflated, fmt));
  const hs = results.handshakes?.handshakes;
  if (hs) {
    rows.push([
      "50-pack https sync, TLS handshakes per origin",
      `API ${hs.api}, CDN ${hs.cdn}`,
      `≤ ${TARGETS.handshakesPerOrigin}`,
    ]);
  }
  if (rows.length === 0) return;
  process.stdout.write("\ntarget rows (medians of this run)\n");
  printTable(["", "now", "goal"], rows);
}

/** `tmp`: this run's temp directory; `cert`: the private CA (made on first https use). */
const state = { tmp: "", cert: undefined };

/** The helpers a bench part in its own file (test/bench/deflated.js) runs with. */
function benchKit() {
  return {
    measure,
    startMock,
    apiGet,
    cdnUrlOf,
    downloadService,
    childEnv,
    errorLine,
    median,
    fmt,
    verdict,
    printTable,
    tmp: state.tmp,
    cli: CLI,
  };
}

/**
 * `--serve`: starts the download part's service (mock API + nginx origin) for the first size
 * and protocol, prints the shell lines to use it by hand (perf, strace, --cpu-prof) and waits
 * for Ctrl-C. With `--only deflated` the pack served is the deflated row's.
 */
async function serve(opts) {
  const size = opts.sizes[0];
  const proto = [...opts.protos][0];
  const deflated = opts.only.has("deflated");
  const mock = await startMock({
    packSize: deflated ? 64 * 1024 : size,
    signedUrlTtlSeconds: 36000,
  });
  const packs = (await apiGet(mock, "packs?limit=100")).data;
  const pack = packs.find((p) => p.slug === "low-poly-forest") ?? packs[0];
  const makeFile = deflated ? (file) => writeDeflatedPack(file, size, pack.slug) : undefined;
  const svc = await downloadService(mock, proto, pack.downloads.bundle, makeFile);
  const curlUrl = (await cdnUrlOf(mock, pack.downloads.bundle)).replace(mock.cdnUrl, svc.cdnUrl);
  const envFile = join(opts.dir, `svc-dl-bench-serve-${proto}.env`);
  const lines = [
    `export SVC_BASE_URL=${svc.baseUrl}`,
    `export SVC_API_KEY=${mock.apiKey}`,
    `export SVC_DL_CONFIG_DIR=${join(state.tmp, "config")}`,
    `export BENCH_SLUG=${pack.slug}`,
    `export BENCH_CA_ARGS="${svc.caArgs.join(" ")}"`,
    `export BENCH_CURL_ARGS="${svc.curlArgs.join(" ")}"`,
    `export BENCH_CURL_URL='${curlUrl}'`,
  ];
  writeFileSync(envFile, `${lines.join("\n")}\n`);
  process.stdout.write(
    `serving ${fmt(size / MIB, 0)} MiB over ${proto} from ${svc.origin}\n${lines.join("\n")}\n` +
      `(also in ${envFile}; e.g. \`. ${envFile} && node ${CLI} pack get $BENCH_SLUG -o DIR/ --force --quiet --no-progress $BENCH_CA_ARGS\`)\n` +
      "Ctrl-C to stop\n",
  );
  // the servers hold the process; the SIGINT/SIGTERM handler above cleans up and exits
  return new Promise(() => {});
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const parts = opts.only.size
    ? opts.only
    : new Set(["startup", "sync", "download", "deflated", "handshakes"]);
  if (!existsSync(join(ROOT, "dist", "cli.js")) || !existsSync(MOCK)) {
    throw new Error("dist/ is missing: run `npm run build` first (npm run bench does)");
  }
  state.tmp = mkdtempSync(join(opts.dir, "svc-dl-bench-"));
  cleanups.push(() => rmSync(state.tmp, { recursive: true, force: true }));
  const meta = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: `${cpus().length} × ${cpus()[0]?.model ?? "?"}`,
    measuredWith: HAVE_TIME ? "/usr/bin/time -f '%U %S %M'" : "/proc/<pid> polling (VmHWM)",
    tmpDir: state.tmp,
    loadAverage1m: loadavg()[0] ?? null,
    quick: opts.quick,
  };
  process.stdout.write(
    `svc-dl bench — node ${meta.node}, ${meta.cpus}; CPU and peak RSS via ${meta.measuredWith}\n`,
  );
  if (meta.loadAverage1m !== null && meta.loadAverage1m > 0.5) {
    process.stdout.write(
      `warning: load average ${meta.loadAverage1m.toFixed(2)}: other work is running; ratios will be noisy\n`,
    );
  }
  const results = { meta, targets: TARGETS };
  let failed = false;
  const run = async (name, fn) => {
    if (!parts.has(name)) return;
    try {
      results[name] = await fn(opts);
    } catch (err) {
      failed = true;
      results[name] = { error: String(err?.message ?? err) };
      process.stdout.write(`\n${name} bench: ERROR ${err?.stack ?? err}\n`);
    }
  };
  if (opts.serve) return serve(opts);
  try {
    await run("startup", benchStartup);
    await run("sync", benchSync);
    await run("download", benchDownload);
    await run("deflated", (o) => benchDeflated(o, benchKit()));
    await run("handshakes", benchHandshakes);
  } finally {
    await cleanupAll();
  }
  printTargetRows(results);
  results.meta.tmpDir = undefined;
  writeFileSync(opts.out, `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`\nresults written to ${opts.out}\n`);
  return failed ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  async (err) => {
    await cleanupAll();
    process.stderr.write(`bench: ${err?.message ?? err}\n`);
    process.exitCode = 1;
  },
);
