import { Command } from "commander";
import type { Session } from "../../session.js";
import { examples, type OpenSession } from "../command-kit.js";

/**
 * `svc-dl doctor [DIR]` (cli-contract "Operating unattended"): one line per check,
 * `ok|warn|fail <check>: <finding>`, with a hint when not ok; `--json`
 * `{"checks":[{name,status,finding,hint}]}`. Exit 1 when a check fails. Never prints a key:
 * findings name where the key came from, and errors are redacted by the client.
 */
export async function runDoctor(session: Session, dirArg: string | undefined): Promise<void> {
  const [{ resolve }, { nodeCheck, sessionChecks }, local, { terminalText }] = await Promise.all([
    import("node:path"),
    import("./checks.js"),
    import("./local-checks.js"),
    import("../../io/terminal-text.js"),
  ]);
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

/** Builds `doctor`. */
export function doctorCommand(open: OpenSession): Command {
  return new Command("doctor")
    .description(
      "check Node, config and cache safety, the service address, the API key, the clock and DIR's state; exit 1 if a check fails",
    )
    .argument("[dir]", "also check this synced directory's state files")
    .addHelpText(
      "after",
      examples(
        "svc-dl doctor",
        "svc-dl doctor ~/assets",
        "svc-dl doctor --json | jq '.checks[] | select(.status != \"ok\")'",
      ),
    )
    .action(async (dir: string | undefined, _opts: unknown, cmd: Command) => {
      await runDoctor(open(cmd), dir);
    });
}
