import { Chalk, type ChalkInstance } from "chalk";

/**
 * Builds the chalk instance for one stream: colour only when the stream is a TTY,
 * `NO_COLOR` is unset and `--no-color` was not given; `FORCE_COLOR` wins over the TTY check
 * (cli-contract "Streams and output").
 */
export function colourFor(
  isTTY: boolean,
  env: Readonly<Record<string, string | undefined>>,
  noColorFlag: boolean,
): ChalkInstance {
  if (noColorFlag || (env.NO_COLOR !== undefined && env.NO_COLOR !== "")) {
    return new Chalk({ level: 0 });
  }
  const forced = env.FORCE_COLOR;
  if (forced !== undefined && forced !== "" && forced !== "0" && forced !== "false") {
    const n = Number(forced);
    const level = n === 2 || n === 3 ? n : 1;
    return new Chalk({ level });
  }
  return new Chalk({ level: isTTY ? 1 : 0 });
}
