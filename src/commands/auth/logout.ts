import { Command } from "commander";
import { examples, type OpenSession } from "../command-kit.js";

/** Builds the `auth logout` command. */
export function logoutCommand(open: OpenSession): Command {
  return new Command("logout")
    .description("delete the API key stored for this service address")
    .addHelpText(
      "after",
      examples("svc-dl auth logout", "svc-dl --base-url https://assets.example.com auth logout"),
    )
    .action(async (_opts: unknown, cmd: Command) => {
      const { runLogout } = await import("./logout.run.js");
      await runLogout(open(cmd));
    });
}
