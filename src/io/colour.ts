import type { ChalkInstance } from "chalk";

/** chalk, once {@link loadColour} has loaded it. */
let chalkModule: typeof import("chalk") | undefined;

/**
 * Loads chalk (once; later calls resolve at once). {@link colourFor} needs it loaded first.
 * chalk costs ~8 ms of start-up, so it is loaded only when it can be used: by cli.ts before
 * printing an error and by the program's `preAction` hook before any command runs — never for
 * `--help` or `--version` (start-up time).
 */
export async function loadColour(): Promise<void> {
  chalkModule ??= await import("chalk");
}

/**
 * Builds the chalk instance for one stream: colour only when the stream is a TTY,
 * `NO_COLOR` is unset and `--no-color` was not given; `FORCE_COLOR` wins over the TTY check,
 * and `FORCE_COLOR=0` (or `false`) means no colour (cli-contract "Streams and output"). Throws an Error if {@link loadColour} has not resolved
 * yet (a programming error).
 */
export function colourFor(
  isTTY: boolean,
  env: Readonly<Record<string, string | undefined>>,
  noColorFlag: boolean,
): ChalkInstance {
  if (chalkModule === undefined) {
    throw new Error("colourFor() called before `await loadColour()`");
  }
  const { Chalk } = chalkModule;
  if (noColorFlag || (env.NO_COLOR !== undefined && env.NO_COLOR !== "")) {
    return new Chalk({ level: 0 });
  }
  const forced = env.FORCE_COLOR;
  if (forced === "0" || forced === "false") return new Chalk({ level: 0 });
  if (forced !== undefined && forced !== "") {
    const n = Number(forced);
    const level = n === 2 || n === 3 ? n : 1;
    return new Chalk({ level });
  }
  return new Chalk({ level: isTTY ? 1 : 0 });
}
