import { Command } from "commander";
import type { Session } from "../../session.js";
import { examples, type OpenSession } from "../command-kit.js";
import { settableKey, shownSetting } from "./settable.js";

/**
 * `svc-dl config get KEY`: prints the value stored in the config file (not the effective one:
 * `--base-url` and SVC_BASE_URL win over it). Prints nothing and exits 0 when unset (a note on
 * stderr). `--json`: `{"key","value"}` with `value` null when unset. Throws UsageError (exit 2)
 * for a key that is not settable. A proxy's password is shown as `***`.
 */
export async function runConfigGet(session: Session, rawKey: string): Promise<void> {
  const key = settableKey(rawKey);
  const stored = (await session.config()).get(key);
  const value = stored === undefined ? undefined : await shownSetting(key, stored);
  if (session.globals.json) {
    session.printJson({ key, value: value ?? null });
    return;
  }
  if (value === undefined) {
    session.reporter.info(`${key} is not set in the config file.`);
    return;
  }
  session.print(value);
}

/** Builds `config get`. */
export function configGetCommand(open: OpenSession): Command {
  return new Command("get")
    .description("print a setting from the config file")
    .argument("<key>", "setting name: base-url")
    .addHelpText("after", examples("svc-dl config get base-url"))
    .action(async (key: string, _opts: unknown, cmd: Command) => {
      await runConfigGet(open(cmd), key);
    });
}
