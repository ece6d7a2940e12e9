import { resolve } from "node:path";
import { terminalText } from "../../io/terminal-text.js";
import type { Session } from "../../session.js";
import { nodeCheck, sessionChecks } from "./checks.js";
import * as local from "./local-checks.js";

/**
 * `svc-dl doctor [DIR]` (cli-contract "Operating unattended"): one line per check,
 * `ok|warn|fail <check>: <finding>`, with a hint when not ok; `--json`
 * `{"checks":[{name,status,finding,hint}]}`. Exit 1 when a check fails. Never prints a key:
 * findings name where the key came from, and errors are redacted by the client.
 */
export async function runDoctor(session: Session, dirArg: string | undefined): Promise<void> {
  const dir = dirArg === undefined ? undefined : resolve(session.ctx.cwd, dirArg);
  const { env, cwd } = session.ctx;
  const checks = [
    nodeCheck(process.versions.node),
    await local.configCheck(env),
    ...(await sessionChecks(session, dir)),
    await local.cacheCheck(env, cwd),
    ...(dir === undefined ? [] : [await local.lockCheck(dir), await local.spaceCheck(dir)]),
  ];
  if (checks.some((c) => c.status === "fail")) session.exitCode = 1;
  if (session.globals.json) {
    session.printJson({ checks });
    return;
  }
  session.print(
    checks.flatMap((c) => {
      const line = `${c.status} ${c.name}: ${terminalText(c.finding)}`;
      return c.hint ? [line, `  hint: ${terminalText(c.hint)}`] : [line];
    }),
  );
}
