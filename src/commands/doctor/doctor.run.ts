import { resolve } from "node:path";
import { bundledUndiciVersion } from "../../build-info.js";
import type { DoctorDocument } from "../../documents/commands.js";
import { NO_COMMAND } from "../../errors/codes.js";
import { terminalText } from "../../io/terminal-text.js";
import type { Session } from "../../session.js";
import { nodeCheck, sessionChecks } from "./checks.js";
import type { DoctorCheck } from "./doctor-check.js";
import * as local from "./local-checks.js";
import { ProbeBudget } from "./probe.js";
import { type SyncNeed, spaceCheck, syncNeed } from "./space-check.js";

/**
 * `svc-dl doctor [DIR]` (cli-contract "Operating unattended"): one line per check,
 * `ok|warn|fail <check>: <finding>`, with a hint when not ok; `--json`
 * `{"checks":[{name,status,finding,hint}]}`. Exit 1 when a check fails. The network probes
 * share one budget (`probeBudgetMs`, default 15 s; tests shorten it). Never prints a key:
 * findings name where the key came from, and errors are redacted by the client.
 */
export async function runDoctor(
  session: Session,
  dirArg: string | undefined,
  opts: { probeBudgetMs?: number } = {},
): Promise<void> {
  const dir = dirArg === undefined ? undefined : resolve(session.ctx.cwd, dirArg);
  const { env, cwd } = session.ctx;
  const hints = session.hints ?? NO_COMMAND;
  const checks = [
    nodeCheck(process.versions.node, bundledUndiciVersion()),
    await local.configCheck(env, hints),
    ...(await sessionChecks(session, dir, new ProbeBudget(opts.probeBudgetMs))),
    await local.cacheCheck(env, cwd, hints),
  ];
  if (dir !== undefined) {
    checks.push(
      await local.lockCheck(dir, hints),
      spaceCheck(dir, await needOf(session, dir, checks)),
    );
  }
  if (checks.some((c) => c.status === "fail")) session.exitCode = 1;
  if (session.globals.json) {
    session.printJson({ checks } satisfies DoctorDocument);
    return;
  }
  session.print(
    checks.flatMap((c) => {
      const line = `${c.status} ${c.name}: ${terminalText(c.finding)}`;
      return c.hint ? [line, `  hint: ${terminalText(c.hint)}`] : [line];
    }),
  );
}

/**
 * What a sync of `dir` would fetch, once the key was accepted (`checks` so far): undefined
 * before that, the error when the listing or DIR's state could not be read.
 */
async function needOf(
  session: Session,
  dir: string,
  checks: readonly DoctorCheck[],
): Promise<SyncNeed | Error | undefined> {
  if (!checks.some((c) => c.name === "key-accepted" && c.status !== "fail")) return undefined;
  try {
    return await syncNeed(session, dir);
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}
