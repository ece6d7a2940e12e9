import { CommanderError } from "commander";
import type { Context } from "./context.js";
import { buildProgram } from "./program.js";
import type { Session } from "./session.js";

/**
 * Runs svc-dl with `argv` (the arguments after the program name) and returns the exit code
 * (cli-contract "Exit codes"). The one place where errors become exit codes and messages:
 * one stderr line (or the `--json` error document), a stack only with `--verbose`. Never
 * calls `process.exit`.
 */
export async function main(argv: readonly string[], ctx: Context): Promise<number> {
  let session: Session | undefined;
  let commanderMessage = "";
  const program = buildProgram(
    ctx,
    (s) => {
      session = s;
    },
    (message) => {
      commanderMessage += message;
    },
  );
  const wantsJson = argv.includes("--json");
  const wantsVerbose = argv.includes("--verbose") || argv.includes("-v");
  try {
    await program.parseAsync([...argv], { from: "user" });
    return session?.exitCode ?? 0;
  } catch (thrown) {
    if (
      thrown instanceof CommanderError &&
      (thrown.code === "commander.helpDisplayed" ||
        thrown.code === "commander.version" ||
        thrown.code === "commander.help")
    ) {
      return 0;
    }
    // loaded only on the error path: `--help` and a successful run never need them (issue 7)
    const [{ formatErrorForHumans, jsonErrorDocument, toSvcError }, { UsageError }, colour] =
      await Promise.all([
        import("./errors/format.js"),
        import("./errors/usage-error.js"),
        import("./io/colour.js"),
      ]);
    let err = thrown;
    if (thrown instanceof CommanderError) {
      const message = (commanderMessage || thrown.message).replace(/^error:\s*/i, "").trim();
      err = new UsageError(message, {
        code: "usage_error",
        hint: "Run `svc-dl --help` (or `svc-dl <command> --help`) for usage and examples.",
      });
    }
    const svcError = toSvcError(err);
    if (wantsJson) {
      ctx.io.stderr.write(`${JSON.stringify(jsonErrorDocument(svcError))}\n`);
    } else {
      await colour.loadColour();
      const chalk = colour.colourFor(ctx.io.stderrIsTTY, ctx.env, argv.includes("--no-color"));
      ctx.io.stderr.write(`${formatErrorForHumans(svcError, chalk, wantsVerbose)}\n`);
    }
    return svcError.exitCode;
  } finally {
    await session?.close();
  }
}
