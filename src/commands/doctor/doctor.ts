import { Command } from "commander";
import { examples, type OpenSession } from "../command-kit.js";

/** Builds `doctor`; its run function (doctor.run.ts) is loaded when the command runs. */
export function doctorCommand(open: OpenSession): Command {
  return new Command("doctor")
    .description(
      "check Node, config and cache safety, the service address, proxy, DNS, TCP and TLS to it, the API key, the clock and DIR's state; exit 1 if a check fails",
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
      const { runDoctor } = await import("./doctor.run.js");
      await runDoctor(open(cmd), dir);
    });
}
