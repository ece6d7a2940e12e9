import { Command } from "commander";
import { examples, type OpenSession } from "../command-kit.js";
import type { ApiOptions } from "./api.run.js";

/** Builds `svc-dl api`. */
export function apiCommand(open: OpenSession): Command {
  return new Command("api")
    .description(
      "GET any route under {base_url}/api/v1 with your key and print the JSON body\n(for routes whose fields the spec does not show)",
    )
    .argument("<path>", "route under /api/v1, with an optional query string")
    .option("--paginate", "follow every page and print one merged data array")
    .addHelpText(
      "after",
      examples(
        "svc-dl api me",
        "svc-dl api orders --paginate",
        "svc-dl api 'assets?limit=100' --paginate | jq length",
        "svc-dl api catalog/packs",
      ),
    )
    .action(async (path: string, opts: ApiOptions, cmd: Command) => {
      const { runApi } = await import("./api.run.js");
      await runApi(open(cmd), path, opts);
    });
}
