import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Writable } from "node:stream";
import { systemClock } from "../../src/clock.js";
import type { Clock } from "../../src/model.js";
import { assertNoSecrets, launchCli, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/files.js";
import { NO_PROXY_ENV } from "../helpers/proxy.js";
import { whenInDir } from "../helpers/wait.js";
import type { CaseTrace } from "./bound.js";
import { type Case, type InterruptionCase, RATES, totalBytes } from "./case.js";
import { commandSlugs, LEGACY_PACK, MANIFEST } from "./world.js";

// Runs a case's command once: in-process through `main(argv, ctx)` (Ctrl-C as an aborted
// signal), or as a child process when the case kills it with SIGKILL. An interruption fires at
// an event of the run (its lock taken, its partial data or stdout grown to a drawn size), never
// after a time.

/** Where a case runs: its working directory, the directory its files land in, its cache. */
export interface Place {
  cwd: string;
  /** The output directory (`-o DIR/`, the sync directory, the manifest's `dir`). */
  outDir: string;
  /** The download cache (`SVC_DL_CACHE_DIR`; `install` fills it). */
  cache: string;
}

/** What one run did. */
export interface RunResult {
  /** Exit code, or null when killed. */
  code: number | null;
  stdout: Buffer;
  stderr: string;
  /** The interruption was delivered before the run ended. */
  interrupted: boolean;
}

/** A fresh place for a case; `install` gets its `svc-dl.json`. */
export function makePlace(c: Case): Place {
  const cwd = tempDir("svc-dl-property-");
  const cache = tempDir("svc-dl-property-cache-");
  if (c.command === "install") {
    writeFileSync(join(cwd, "svc-dl.json"), `${JSON.stringify(MANIFEST)}\n`);
    return { cwd, outDir: join(cwd, MANIFEST.dir), cache };
  }
  const outDir = join(cwd, "out");
  mkdirSync(outDir);
  return { cwd, outDir, cache };
}

/**
 * The argv of a case's command (`--json` unless its data goes to stdout); `proxyUrl` is the
 * forward proxy's, named by `--proxy` when the case draws the flag.
 */
export function argvFor(c: Case, place: Place, proxyUrl: string): string[] {
  const slugs = commandSlugs(c);
  const out = c.stdout ? ["-o", "-"] : ["-o", `${place.outDir}/`];
  const base: Record<Case["command"], string[]> = {
    pack: ["pack", "get", ...slugs, ...out],
    packs: ["pack", "get", ...slugs, ...out],
    asset: ["asset", "get", ...slugs, ...out],
    assets: ["asset", "get", ...slugs, ...out],
    legacy: ["legacy", "get", "--pack", LEGACY_PACK, ...out],
    sync: ["packs", "sync", place.outDir, ...(c.refresh ? ["--refresh"] : [])],
    install: ["install"],
  };
  return [
    ...base[c.command],
    ...(c.extract ? ["--extract"] : []),
    ...(c.stdout ? [] : ["--json"]),
    ...networkFlags(c, proxyUrl),
    ...(c.maxDuration !== undefined ? ["--max-duration", `${c.maxDuration}s`] : []),
  ];
}

/** The case's `--limit-rate` and `--proxy` flags, when it draws them as flags. */
export function networkFlags(c: Case, proxyUrl: string): string[] {
  return [
    ...(c.limitRate?.via === "flag" ? ["--limit-rate", c.limitRate.rate] : []),
    ...(c.proxy?.via === "flag" ? ["--proxy", proxyUrl] : []),
  ];
}

/**
 * The environment of a case's runs on top of the service's: `SVC_DL_LIMIT_RATE`, the cache,
 * `HTTP_PROXY` and `HTTPS_PROXY` set to `proxyUrl` when the case draws them (no proxy variable
 * of the machine's otherwise).
 */
export function envFor(
  c: Case,
  place: Place,
  service: Record<string, string>,
  proxyUrl: string,
): Record<string, string | undefined> {
  return {
    ...service,
    ...NO_PROXY_ENV,
    SVC_DL_CACHE_DIR: place.cache,
    ...(c.limitRate?.via === "env" ? { SVC_DL_LIMIT_RATE: c.limitRate.rate } : {}),
    ...(c.proxy?.via === "env" ? { HTTP_PROXY: proxyUrl, HTTPS_PROXY: proxyUrl } : {}),
  };
}

/** Bytes of partial data (`*.part`) under `<dir>/.svc-dl/`, one level of sub-directories too. */
function partialBytes(dir: string): number {
  const stateDir = join(dir, ".svc-dl");
  let n = 0;
  const walk = (d: string, depth: number): void => {
    for (const name of existsSync(d) ? readdirSync(d) : []) {
      const path = join(d, name);
      try {
        const st = statSync(path);
        if (st.isDirectory() && depth > 0) walk(path, depth - 1);
        else if (name.endsWith(".part")) n += st.size;
      } catch {
        // renamed away between the listing and the stat
      }
    }
  };
  walk(stateDir, 1);
  return n;
}

/** Whether the lock of `dir` is held (its owner record written). */
function lockTaken(dir: string): boolean {
  try {
    return readFileSync(join(dir, ".svc-dl", "lock-owner.json"), "utf8").includes("pid");
  } catch {
    return false;
  }
}

/**
 * The byte count an interruption waits for: `at` of the case's bytes, and for a run that paces
 * in real time (a child process, a real clock) at most half a second of its rate.
 */
function interruptBytes(c: Case, i: Exclude<InterruptionCase, { kind: "none" }>): number {
  let bytes = Math.max(1, Math.floor(i.at * totalBytes(c)));
  if (c.limitRate && (i.kind === "sigkill" || c.realClock)) {
    bytes = Math.min(bytes, RATES[c.limitRate.rate] / 2);
  }
  return bytes;
}

/**
 * A clock whose waits yield to the event loop once (so the socket goes on delivering while a
 * rate gate or a backoff holds bytes, as with real waits), then move manual time on.
 */
export function yieldingClock(): Clock {
  let now = Date.now();
  return {
    now: () => now,
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      await new Promise<void>((resolve) => setImmediate(resolve));
      signal?.throwIfAborted();
      now += ms;
    },
  };
}

/** A stream collecting what is written to it, telling `onWrite` the running total. */
class Capture extends Writable {
  readonly chunks: Buffer[] = [];
  bytes = 0;
  constructor(private readonly onWrite: (total: number) => void) {
    super();
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.chunks.push(Buffer.from(chunk));
    this.bytes += chunk.length;
    this.onWrite(this.bytes);
    cb();
  }
}

/** What a run of a case is, for its {@link CaseTrace} step. */
export interface RunStep {
  /** "run 1", "re-run". */
  label: string;
  trace: CaseTrace;
}

/** The facts of a pending run: its interruption, its output so far, the state of its directory. */
function runFacts(
  c: Case,
  place: Place,
  interruption: InterruptionCase,
  want: number,
  seen: () => { interrupted: boolean; stdoutBytes: number },
): (() => string)[] {
  const told =
    interruption.kind === "none"
      ? undefined
      : `${interruption.kind} at ${interruption.atLock ? "the lock" : `${want} bytes`}`;
  return [
    () => (told ? `${told}: ${seen().interrupted ? "delivered" : "not yet"}` : "no interruption"),
    () => `stdout ${seen().stdoutBytes} bytes`,
    () =>
      c.stdout
        ? "no directory (-o -)"
        : `partial data ${partialBytes(place.outDir)} bytes, lock ${lockTaken(place.outDir) ? "held" : "free"}`,
  ];
}

/** Runs `args` once as case `c` says (interrupted when `interruption` is given). */
export async function runOnce(
  c: Case,
  place: Place,
  args: string[],
  env: Record<string, string | undefined>,
  interruption: InterruptionCase,
  step: RunStep,
): Promise<RunResult> {
  if (interruption.kind === "sigkill") return runChild(c, place, args, env, interruption, step);
  let interrupted = false;
  let ended = false;
  let stop: (() => void) | undefined;
  const interrupt = (): void => {
    if (ended || interrupted || !stop) return;
    interrupted = true;
    stop();
  };
  const want = interruption.kind === "sigint" ? interruptBytes(c, interruption) : Infinity;
  const stdout = new Capture((total) => {
    if (c.stdout && total >= want && interruption.kind === "sigint" && !interruption.atLock)
      interrupt();
  });
  step.trace.step(
    `${step.label}: svc-dl ${args.join(" ")} (in-process)`,
    runFacts(c, place, interruption, want, () => ({ interrupted, stdoutBytes: stdout.bytes })),
    () => stop?.(),
  );
  const running = runCli(args, {
    env,
    cwd: place.cwd,
    timeoutMs: 120_000,
    stdout,
    waits: c.realClock ? systemClock : yieldingClock(),
    onStart: (fn) => {
      stop = fn;
    },
  }).finally(() => {
    ended = true;
  });
  if (interruption.kind === "sigint" && (interruption.atLock || !c.stdout)) {
    const reached = interruption.atLock
      ? () => lockTaken(place.outDir)
      : () => partialBytes(place.outDir) >= want;
    await whenInDir(join(place.outDir, ".svc-dl"), reached, {
      what: "the interruption point",
      until: running,
    }).then(interrupt, () => undefined);
  }
  const r = await running;
  const out = Buffer.concat(stdout.chunks);
  if (!c.stdout) assertNoSecrets(out.toString("utf8"), `stdout of svc-dl ${args.join(" ")}`);
  return { code: r.code, stdout: out, stderr: r.stderr, interrupted };
}

/** Runs `args` as a child process, killed with SIGKILL at the interruption point. */
async function runChild(
  c: Case,
  place: Place,
  args: string[],
  env: Record<string, string | undefined>,
  interruption: Exclude<InterruptionCase, { kind: "none" }>,
  step: RunStep,
): Promise<RunResult> {
  const cli = launchCli(args, { env, cwd: place.cwd, timeoutMs: 120_000 });
  const want = interruptBytes(c, interruption);
  let interrupted = false;
  const kill = (): void => {
    if (cli.child.exitCode !== null || cli.child.signalCode !== null || interrupted) return;
    interrupted = true;
    cli.child.kill("SIGKILL");
  };
  let stdoutBytes = 0;
  cli.child.stdout.on("data", (d: Buffer) => {
    stdoutBytes += d.length;
    if (c.stdout && !interruption.atLock && stdoutBytes >= want) kill();
  });
  step.trace.step(
    `${step.label}: svc-dl ${args.join(" ")} (child process ${cli.child.pid})`,
    runFacts(c, place, interruption, want, () => ({ interrupted, stdoutBytes })),
    () => cli.child.kill("SIGKILL"),
  );
  if (!c.stdout || interruption.atLock) {
    const reached = interruption.atLock
      ? () => lockTaken(place.outDir)
      : () => partialBytes(place.outDir) >= want;
    void whenInDir(join(place.outDir, ".svc-dl"), reached, {
      what: "the kill point",
      until: cli.done,
    }).then(kill, () => undefined);
  }
  const r = await cli.done;
  return { code: r.code, stdout: r.stdoutBytes, stderr: r.stderr, interrupted: r.signal !== null };
}
