import { Command } from "commander";
import { examples, type OpenSession } from "../command-kit.js";

/** Builds the `auth status` command. */
export function authStatusCommand(open: OpenSession): Command {
  return new Command("status")
    .description("show which key is in use for this service address, and whether it works")
    .addHelpText(
      "after",
      examples("svc-dl auth status", "svc-dl auth status --json | jq -r .source"),
    )
    .action(async (_opts: unknown, cmd: Command) => {
      const { runAuthStatus } = await import("./status.run.js");
      await runAuthStatus(open(cmd));
    });
}
