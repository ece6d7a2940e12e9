import { Command } from "commander";
import { examples, type OpenSession } from "../command-kit.js";
import type { LoginOptions } from "./login.run.js";

/** Builds the `auth login` command. */
export function loginCommand(open: OpenSession): Command {
  return new Command("login")
    .description(
      "check an API key with the service and store it for this service address\n(hidden prompt, or stdin with --with-key); kept in the OS keyring when one is\nusable, else in the config file (mode 0600)",
    )
    .option("--with-key", "read the API key from stdin (for scripts)")
    .option(
      "--insecure-storage",
      "store the key in the config file (mode 0600) even when an OS keyring is usable",
    )
    .addHelpText(
      "after",
      examples(
        "svc-dl auth login",
        "svc-dl auth login --with-key < ~/.secrets/svc-key",
        "svc-dl auth login --insecure-storage",
        "printf '%s' \"$KEY\" | svc-dl --base-url https://assets.example.com auth login --with-key",
      ),
    )
    .action(async (opts: LoginOptions, cmd: Command) => {
      const { runLogin } = await import("./login.run.js");
      await runLogin(open(cmd), opts);
    });
}
