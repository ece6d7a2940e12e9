import { Command } from "commander";
import type { Session } from "../session.js";
import { examples, type OpenSession } from "./command-kit.js";

/**
 * `svc-dl verify [DIR]` (cli-contract): re-hashes every file the state file of DIR (default `.`)
 * records and compares size and SHA-256, with no network. Human: one line per file on stdout
 * (`ok`, `changed`, `missing` and the path), a summary on stderr. `--json`:
 * `{"dir","items":[{"path","status","sha256"}]}`. Sets exit 1 when any file changed or is
 * missing. Throws FileSystemError `no_state` (exit 8) when DIR has no state file.
 */
export async function runVerify(session: Session, dirArg: string | undefined): Promise<void> {
  const { resolve } = await import("node:path");
  const { verifyDir } = await import("../download/verify.js");
  const dir = resolve(session.ctx.cwd, dirArg ?? ".");
  const json = session.globals.json;
  const items = verifyDir(dir, (item) => {
    if (!json) session.print(`${item.status.padEnd(8)} ${item.path}`);
  });
  const bad = items.filter((i) => i.status !== "ok");
  if (json) {
    session.printJson({
      dir,
      items: items.map((i) => ({ path: i.path, status: i.status, sha256: i.sha256 })),
    });
  } else {
    const changed = items.filter((i) => i.status === "changed").length;
    const missing = items.filter((i) => i.status === "missing").length;
    session.reporter.info(
      `${items.length} recorded file${items.length === 1 ? "" : "s"}: ${items.length - bad.length} ok, ${changed} changed, ${missing} missing`,
    );
  }
  if (bad.length > 0) session.exitCode = 1;
}

/** Builds the `verify` command. */
export function verifyCommand(open: OpenSession): Command {
  return new Command("verify")
    .description(
      "re-hash every downloaded file in DIR and report changed or missing ones (offline)",
    )
    .argument("[dir]", "directory svc-dl downloaded into", ".")
    .addHelpText(
      "after",
      examples(
        "svc-dl verify",
        "svc-dl verify ~/assets",
        "svc-dl verify ~/assets --json | jq '.items[] | select(.status != \"ok\")'",
      ),
    )
    .action(async (dir: string | undefined, _opts: unknown, cmd: Command) => {
      await runVerify(open(cmd), dir);
    });
}
