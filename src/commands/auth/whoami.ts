import { Command } from "commander";
import { examples, type OpenSession } from "../command-kit.js";

/** Builds the `whoami` command. */
export function whoamiCommand(open: OpenSession): Command {
  return new Command("whoami")
    .description("show the account, entitlements and API key in use (GET /v1/me)")
    .addHelpText("after", examples("svc-dl whoami", "svc-dl whoami --json | jq .entitlements"))
    .action(async (_opts: unknown, cmd: Command) => {
      const { runWhoami } = await import("./whoami.run.js");
      await runWhoami(open(cmd));
    });
}
