/**
 * Every feature combination against the served bytes (cli-contract "Integrity": `--limit-rate`,
 * `--max-duration`, `-o -`, `--extract`, proxies, TLS, resume and retries change when bytes
 * arrive, never which bytes are kept). fast-check draws a command (`pack get` of one or several
 * slugs, `asset get`, `legacy get` with the license key, `packs sync` with or without
 * `--refresh`, `install`), a `--limit-rate` (flag or `SVC_DL_LIMIT_RATE`), a forward proxy
 * (`--proxy` or `HTTP(S)_PROXY`), a `--max-duration`, http or https with a private CA, the
 * mock's file sizes, write sizes and pace, a fault (cut bodies, 5xx, a 416 on resume, expired
 * CDN URLs), an interruption (Ctrl-C in-process, SIGKILL of a child process), the output (`-o
 * -`, files, `--extract`) and a new version of every item before the re-run. After every run,
 * whatever is under a final name holds exactly the mock's bytes for it, a failed item left no
 * file, state, lock and cache name the bytes on disk; a run that was not cut short by a fatal
 * fault, an interruption or its `--max-duration` (exit 10) succeeded; after any of those, the
 * re-run without the fault, the interruption and the deadline succeeds, and where the case
 * draws it every item has a new version by then, which every file must end as (never two
 * versions spliced; a pack `packs sync` had completed without `--refresh` may stay the version
 * before); a drawn proxy carried the case's requests; `verify` calls every recorded file ok;
 * and where the case draws it, a byte flipped behind a record that still names the file's size
 * and mtime is `changed` to `verify` and restored by `verify --repair`.
 *
 * `SVC_DL_PROPERTY_RUNS` sets the number of cases (default 16), `SVC_DL_PROPERTY_SEED` the seed
 * (default: drawn, and printed), `SVC_DL_PROPERTY_PATH` replays one failing case of a seed,
 * `SVC_DL_PROPERTY_CASE_SECONDS` the bound of one case (default 90 s of real time): a case that
 * outlives it fails at once, naming what it still waited on. The first failing case ends the
 * run (no shrinking), so a run takes at most the number of cases times the bound.
 */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { systemClock } from "../../src/clock.js";
import { runCli } from "../helpers/cli.js";
import { flipInPlace, restampRecord } from "../helpers/files.js";
import { servedBytes } from "../reliability/helpers/harness.js";
import { CaseTimeout, CaseTrace, withinBound } from "./bound.js";
import { type Case, caseArb, describeCase } from "./case.js";
import {
  dirProblem,
  docItems,
  installRecordsProblem,
  missingItem,
  stdoutProblem,
} from "./checks.js";
import {
  argvFor,
  envFor,
  makePlace,
  networkFlags,
  type Place,
  type RunResult,
  runOnce,
  yieldingClock,
} from "./runner.js";
import {
  applyCase,
  faultOutcome,
  liftFault,
  republish,
  type ServedItem,
  useWorld,
} from "./world.js";

const RUNS = Number(process.env.SVC_DL_PROPERTY_RUNS) || 16;
const SEED = Number(process.env.SVC_DL_PROPERTY_SEED) || Math.floor(Math.random() * 2 ** 31);
const PATH = process.env.SVC_DL_PROPERTY_PATH;
/** Prints each case with its time once it passed. */
const VERBOSE = process.env.SVC_DL_PROPERTY_VERBOSE === "1";
/** The bound of one case, in ms of real time (generous: a case takes seconds on a busy machine). */
const CASE_MS = 1000 * (Number(process.env.SVC_DL_PROPERTY_CASE_SECONDS) || 90);
/** The budget of the whole run: no case starts after it (20 s a case on average). */
const BUDGET_MS = Math.max(180_000, RUNS * 20_000);

const world = useWorld();

/** A failed expectation of one case, with what the runs printed. */
class CaseFailure extends Error {}

/** Most requests of the case listed in a failure (its last ones). */
const TRAIL_LINES = 60;

/**
 * The case's requests as the mock logged them, one line each (the log is cleared when a case
 * starts): time, origin, method, path, Range and If-Range, status, body bytes sent, ETag.
 */
function requestTrail(): string {
  const entries = world.mock.requests.slice(-TRAIL_LINES);
  const t0 = entries[0]?.time ?? 0;
  return entries
    .map((e) => {
      const range = e.headers.range ? ` range ${e.headers.range}` : "";
      const ifRange = e.headers["if-range"] ? ` if-range ${e.headers["if-range"]}` : "";
      const etag = e.responseHeaders.etag ? ` etag ${e.responseHeaders.etag}` : "";
      const path = e.url.split("?")[0];
      return `  +${e.time - t0} ms ${e.origin} ${e.method} ${path}${range}${ifRange} → ${e.status}, ${e.bytesSent} bytes${etag}`;
    })
    .join("\n");
}

/**
 * Throws a {@link CaseFailure} naming `problem`, the runs so far and the case's requests, when
 * there is a problem.
 */
function holds(problem: string | undefined, runs: RunResult[]): void {
  if (problem === undefined) return;
  const told = runs
    .map(
      (r, i) => `run ${i + 1}: exit ${r.code}${r.interrupted ? " (interrupted)" : ""}\n${r.stderr}`,
    )
    .join("\n");
  throw new CaseFailure(`${problem}\n${told}\nrequests:\n${requestTrail()}`);
}

/** The checks after every run of a case. */
async function afterRun(
  c: Case,
  place: Place,
  items: readonly ServedItem[],
  served: Buffer | undefined,
  runs: RunResult[],
  succeeded: boolean,
): Promise<void> {
  const r = runs.at(-1) as RunResult;
  if (served) holds(stdoutProblem(r.stdout, served, succeeded), runs);
  holds(await dirProblem(c, place, items, r.stdout), runs);
  if (c.command === "install") holds(installRecordsProblem(place, items), runs);
  if (succeeded && !c.stdout) holds(missingItem(c, place, items), runs);
}

/** `verify DIR --json` calls every item's file ok, and records nothing else. */
async function verifyAgrees(
  place: Place,
  items: readonly ServedItem[],
  runs: RunResult[],
  trace: CaseTrace,
) {
  const args = ["verify", place.outDir, "--json"];
  let stop: (() => void) | undefined;
  trace.step(`verify: svc-dl ${args.join(" ")} (in-process)`, [], () => stop?.());
  const v = await runCli(args, {
    onStart: (fn) => {
      stop = fn;
    },
  });
  const doc = JSON.parse(v.stdout || "{}") as { items?: { path: string; status: string }[] };
  const wanted = items.filter((i) => !i.denied).map((i) => i.filename);
  const seen = (doc.items ?? []).map((i) => i.path.split("/").at(-1));
  const bad = (doc.items ?? []).filter((i) => i.status !== "ok");
  holds(
    v.code !== 0 || bad.length > 0 || seen.sort().join() !== wanted.sort().join()
      ? `verify (exit ${v.code}) disagrees: ${v.stdout}${v.stderr}`
      : undefined,
    runs,
  );
}

/** An in-process run's result as a {@link RunResult} (never interrupted). */
function asRun(r: { code: number | null; stdout: string; stderr: string }): RunResult {
  return { code: r.code, stdout: Buffer.from(r.stdout), stderr: r.stderr, interrupted: false };
}

/**
 * A byte of the first item's file flipped, its size and modification time still those its
 * record names: `verify` calls it changed (exit 1), `verify --repair` downloads it again with
 * the case's network features, whatever size and mtime say (exit 0), and the directory holds
 * the served bytes again.
 */
async function damageRepaired(
  c: Case,
  place: Place,
  items: readonly ServedItem[],
  env: Record<string, string | undefined>,
  runs: RunResult[],
  trace: CaseTrace,
): Promise<void> {
  const item = items.find((i) => !i.denied && existsSync(join(place.outDir, i.filename)));
  if (item === undefined || c.damage === undefined) return;
  const path = join(place.outDir, item.filename);
  flipInPlace(path, Math.floor(c.damage * (statSync(path).size - 1)));
  restampRecord(place.outDir, path); // size and mtime match the record: only a re-hash tells
  liftFault(world.mock, c);
  const found = await runCli(["verify", place.outDir, "--json"], { env, cwd: place.cwd });
  runs.push(asRun(found));
  const status = docItems(Buffer.from(found.stdout)).find((d) =>
    d.path?.endsWith(`/${item.filename}`),
  )?.status;
  holds(
    found.code === 1 && status === "changed"
      ? undefined
      : `verify: ${item.filename} is ${status}, exit ${found.code}`,
    runs,
  );
  const args = ["verify", place.outDir, "--repair", "--json", ...networkFlags(c, world.proxy.url)];
  let stop: (() => void) | undefined;
  trace.step(`repair: svc-dl ${args.join(" ")} (in-process)`, [], () => stop?.());
  const repaired = await runCli(args, {
    env,
    cwd: place.cwd,
    waits: c.realClock ? systemClock : yieldingClock(),
    onStart: (fn) => {
      stop = fn;
    },
  });
  runs.push(asRun(repaired));
  holds(repaired.code === 0 ? undefined : `verify --repair: exit ${repaired.code}`, runs);
  holds(await dirProblem(c, place, items, Buffer.alloc(0)), runs);
  await verifyAgrees(place, items, runs, trace);
}

/**
 * One case: the run as drawn, the re-run when that was cut short, then `verify`. Returns the
 * runs' exit codes (null: killed), in order.
 */
async function checkCase(c: Case, trace: CaseTrace): Promise<(number | null)[]> {
  trace.step("setting the mock for the case");
  const items = await applyCase(world.mock, c, async (first) =>
    c.stdout ? servedBytes(world.mock, first) : undefined,
  );
  const served = items.bytes;
  const place = makePlace(c);
  const proxy = world.proxy;
  const tunnelsBefore = proxy.connects.length;
  const env = envFor(c, place, world.env(c.protocol), proxy.url);
  const args = argvFor(c, place, proxy.url);
  const okExit = c.denied ? 1 : 0;
  const runs: RunResult[] = [];
  const first = await runOnce(c, place, args, env, c.interruption, { label: "run 1", trace });
  runs.push(first);
  const firstSize = items.served.find((i) => !i.denied)?.size ?? 0;
  const outcome = faultOutcome(c, firstSize);
  // exit 10: the run's window ended first (a rate-limit wait or a backoff moved its clock on,
  // or a slow case its real time); its partial data is kept for the re-run
  const stopped = first.interrupted || (c.maxDuration !== undefined && first.code === 10);
  // a refused item makes even a good run exit 1: whether the other items failed too (a fault
  // that never ends) is told by their files
  const missing = c.denied ? missingItem(c, place, items.served) : undefined;
  const failed = outcome === "fails" || first.code !== okExit || missing !== undefined;
  if (!stopped && outcome === "ok") {
    holds(
      failed ? `exit ${first.code}, not ${okExit}${missing ? `: ${missing}` : ""}` : undefined,
      runs,
    );
  }
  if (!stopped && failed && outcome !== "ok") {
    holds([1, 7].includes(first.code ?? -1) ? undefined : `exit ${first.code}, not 1 or 7`, runs);
  }
  await afterRun(c, place, items.served, served, runs, first.code === 0);
  let final = items.served;
  if (stopped || failed) {
    liftFault(world.mock, c);
    let servedNow = served;
    if (c.republish) {
      trace.step("publishing a new version of every item");
      // a pack `packs sync` completed is skipped with no request unless `--refresh`
      const completed = (i: ServedItem) => existsSync(join(place.outDir, i.filename));
      const keeps = (i: ServedItem) => c.command === "sync" && !c.refresh && completed(i);
      final = await republish(world.mock, items.served, keeps);
      const firstRef = final.find((i) => !i.denied)?.ref;
      servedNow = c.stdout && firstRef ? await servedBytes(world.mock, firstRef) : undefined;
    }
    const rerun = argvFor({ ...c, maxDuration: undefined }, place, proxy.url);
    const again = await runOnce(c, place, rerun, env, { kind: "none" }, { label: "re-run", trace });
    runs.push(again);
    holds(again.code === okExit ? undefined : `re-run: exit ${again.code}, not ${okExit}`, runs);
    await afterRun(c, place, final, servedNow, runs, again.code === 0);
  }
  const tunnels = proxy.connects.length - tunnelsBefore;
  if (c.proxy) holds(tunnels > 0 ? undefined : "the drawn proxy carried no request", runs);
  else holds(tunnels === 0 ? undefined : `${tunnels} tunnels through a proxy not drawn`, runs);
  if (!c.stdout) await verifyAgrees(place, final, runs, trace);
  if (c.damage !== undefined) await damageRepaired(c, place, final, env, runs, trace);
  return runs.map((r) => r.code);
}

describe("feature combinations against the served bytes", () => {
  it(
    `${RUNS} drawn cases: final files are the served bytes, failed items leave none, verify agrees`,
    async () => {
      console.log(
        `property seed ${SEED} (replay: SVC_DL_PROPERTY_SEED=${SEED} SVC_DL_PROPERTY_RUNS=${RUNS})`,
      );
      const drawn: Case[] = [];
      const property = fc.asyncProperty(caseArb, async (c) => {
        drawn.push(c);
        const started = Date.now();
        const trace = new CaseTrace();
        try {
          const exits = await withinBound(CASE_MS, trace, () => checkCase(c, trace));
          if (VERBOSE) {
            console.log(`${Date.now() - started} ms, exits ${exits.join(" ")}: ${describeCase(c)}`);
          }
        } catch (e) {
          const how =
            e instanceof CaseFailure || e instanceof CaseTimeout
              ? e.message
              : String((e as Error)?.stack ?? e);
          throw new Error(`case ${describeCase(c)}\n${how}`);
        }
      });
      const details = await fc.check(property, {
        numRuns: PATH ? 1 : RUNS,
        seed: SEED,
        endOnFailure: true,
        interruptAfterTimeLimit: BUDGET_MS,
        markInterruptAsFailure: true,
        ...(PATH ? { path: PATH } : {}),
      });
      const failure = details.interrupted
        ? `${drawn.length} of ${RUNS} cases ran within the run's budget of ${BUDGET_MS / 1000} s`
        : details.failed
          ? `${String(details.errorInstance)}\nreplay: SVC_DL_PROPERTY_SEED=${SEED} SVC_DL_PROPERTY_PATH=${details.counterexamplePath}`
          : undefined;
      expect(failure).toBeUndefined();
      expect(drawn.length).toBe(PATH ? 1 : RUNS);
    },
    BUDGET_MS + CASE_MS + 60_000, // the last case may start just before the budget ends
  );
});
