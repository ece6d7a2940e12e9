/**
 * Every feature combination against the served bytes (cli-contract "Integrity": `--limit-rate`,
 * `-o -`, `--extract`, TLS, resume and retries change when bytes arrive, never which bytes are
 * kept). fast-check draws a command (`pack get` of one or several slugs, `asset get`, `packs
 * sync`, `install`), a `--limit-rate` (flag or `SVC_DL_LIMIT_RATE`), http or https with a
 * private CA, the mock's file sizes, write sizes and pace, a fault (cut bodies, 5xx, a 416 on
 * resume, expired CDN URLs), an interruption (Ctrl-C in-process, SIGKILL of a child process)
 * and the output (`-o -`, files, `--extract`). After every run, whatever is under a final name
 * holds exactly the mock's bytes for it, a failed item left no file, state, lock and cache
 * name the bytes on disk; a run that was not cut short by a fatal fault or an interruption
 * succeeded; after a fatal fault or an interruption, the re-run without it succeeds; and
 * `verify` calls every recorded file ok.
 *
 * `SVC_DL_PROPERTY_RUNS` sets the number of cases (default 16), `SVC_DL_PROPERTY_SEED` the seed
 * (default: drawn, and printed), `SVC_DL_PROPERTY_PATH` replays one failing case of a seed.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { servedBytes } from "../reliability/helpers/harness.js";
import { type Case, caseArb, describeCase } from "./case.js";
import { dirProblem, installRecordsProblem, missingItem, stdoutProblem } from "./checks.js";
import { argvFor, envFor, makePlace, type Place, type RunResult, runOnce } from "./runner.js";
import { applyCase, faultOutcome, liftFault, type ServedItem, useWorld } from "./world.js";

const RUNS = Number(process.env.SVC_DL_PROPERTY_RUNS) || 16;
const SEED = Number(process.env.SVC_DL_PROPERTY_SEED) || Math.floor(Math.random() * 2 ** 31);
const PATH = process.env.SVC_DL_PROPERTY_PATH;
/** Prints each case with its time once it passed. */
const VERBOSE = process.env.SVC_DL_PROPERTY_VERBOSE === "1";

const world = useWorld();

/** A failed expectation of one case, with what the runs printed. */
class CaseFailure extends Error {}

/** Throws a {@link CaseFailure} naming `problem` and the runs so far, when there is a problem. */
function holds(problem: string | undefined, runs: RunResult[]): void {
  if (problem === undefined) return;
  const told = runs
    .map(
      (r, i) => `run ${i + 1}: exit ${r.code}${r.interrupted ? " (interrupted)" : ""}\n${r.stderr}`,
    )
    .join("\n");
  throw new CaseFailure(`${problem}\n${told}`);
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
async function verifyAgrees(place: Place, items: readonly ServedItem[], runs: RunResult[]) {
  const v = await runCli(["verify", place.outDir, "--json"]);
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

/** One case: the run as drawn, the re-run when that was cut short, then `verify`. */
async function checkCase(c: Case): Promise<void> {
  const items = await applyCase(world.mock, c, async (first) =>
    c.stdout ? servedBytes(world.mock, first) : undefined,
  );
  const served = items.bytes;
  const place = makePlace(c);
  const env = envFor(c, place, world.env(c.protocol));
  const args = argvFor(c, place);
  const okExit = c.denied ? 1 : 0;
  const runs: RunResult[] = [];
  const first = await runOnce(c, place, args, env, c.interruption);
  runs.push(first);
  const outcome = faultOutcome(c);
  // a refused item makes even a good run exit 1: a fault that never ends is then told by the
  // items, which the re-run and `verify` check
  const failed = outcome === "fails" || first.code !== okExit;
  if (!first.interrupted && outcome === "ok") {
    holds(failed ? `exit ${first.code}, not ${okExit}` : undefined, runs);
  }
  if (!first.interrupted && failed && outcome !== "ok") {
    holds([1, 7].includes(first.code ?? -1) ? undefined : `exit ${first.code}, not 1 or 7`, runs);
  }
  await afterRun(c, place, items.served, served, runs, first.code === 0);
  if (first.interrupted || failed) {
    liftFault(world.mock, c);
    const again = await runOnce(c, place, args, env, { kind: "none" });
    runs.push(again);
    holds(again.code === okExit ? undefined : `re-run: exit ${again.code}, not ${okExit}`, runs);
    await afterRun(c, place, items.served, served, runs, again.code === 0);
  }
  if (!c.stdout) await verifyAgrees(place, items.served, runs);
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
        try {
          await checkCase(c);
          if (VERBOSE) console.log(`${Date.now() - started} ms: ${describeCase(c)}`);
        } catch (e) {
          const how = e instanceof CaseFailure ? e.message : String((e as Error)?.stack ?? e);
          throw new Error(`case ${describeCase(c)}\n${how}`);
        }
      });
      const details = await fc.check(property, {
        numRuns: PATH ? 1 : RUNS,
        seed: SEED,
        endOnFailure: true,
        ...(PATH ? { path: PATH } : {}),
      });
      const failure = details.failed
        ? `${String(details.errorInstance)}\nreplay: SVC_DL_PROPERTY_SEED=${SEED} SVC_DL_PROPERTY_PATH=${details.counterexamplePath}`
        : undefined;
      expect(failure).toBeUndefined();
      expect(drawn.length).toBe(PATH ? 1 : RUNS);
    },
    Math.max(180_000, RUNS * 20_000),
  );
});
