import { Command } from "commander";
import { SETTABLE_KEYS_TEXT } from "../../config/settable-keys.js";
import { examples, type OpenSession } from "../command-kit.js";

/** Builds `config set`. */
export function configSetCommand(open: OpenSession): Command {
  return new Command("set")
    .description("store a setting in the config file")
    .argument("<key>", `setting name: ${SETTABLE_KEYS_TEXT}`)
    .argument("<value>", "the new value")
    .addHelpText(
      "after",
      examples(
        "svc-dl config set base-url https://assets.example.com",
        "svc-dl config set base-url http://127.0.0.1:8787",
        "svc-dl config set proxy http://proxy.example:3128",
        "svc-dl config set ca-file /etc/ssl/corp-ca.pem",
      ),
    )
    .action(async (key: string, value: string, _opts: unknown, cmd: Command) => {
      const { runConfigSet } = await import("./set.run.js");
      await runConfigSet(open(cmd), key, value);
    });
}
