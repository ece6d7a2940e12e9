import { Command } from "commander";
import { examples, type OpenSession } from "../command-kit.js";
import type { LoginOptions } from "./login.run.js";

/** Builds the `auth login` command. */
export function loginCommand(open: OpenSession): Command {
  return new Command("login")
    .description(
      "check an API key with the service and store it for this service address\n(hidden prompt, or stdin with --with-key)",
    )
    .option("--with-key", "read the API key from stdin (for scripts)")
    .addHelpText(
      "after",
      examples(
        "svc-dl auth login",
        "svc-dl auth login --with-key < ~/.secrets/svc-key",
        "printf '%s' \"$KEY\" | svc-dl --base-url https://assets.example.com auth login --with-key",
      ),
    )
    .action(async (opts: LoginOptions, cmd: Command) => {
      const { runLogin } = await import("./login.run.js");
      await runLogin(open(cmd), opts);
    });
}
