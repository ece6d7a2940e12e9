import { Readable, Writable } from "node:stream";
import { type Command, CommanderError } from "commander";
import { verboseVersion } from "./build-info.js";
import type { Context } from "./context.js";
import type { HintContext } from "./errors/codes.js";
import { ExitCode } from "./errors/exit-codes.js";
import { jsonErrorDocument, toSvcError } from "./errors/format.js";
import type { SvcError } from "./errors/svc-error.js";
import { UsageError } from "./errors/usage-error.js";
import { helpTopic } from "./help-topics.js";
import { colourFor, loadColour } from "./io/colour.js";
import { formatErrorForHumans } from "./io/error-lines.js";
import { buildProgram } from "./program.js";
import type { Session } from "./session.js";

export { setInflateCollector } from "./integrity/inflate-collector.js";

/** Commander's codes for help and version output: not failures. */
const HELP_CODES = new Set(["commander.helpDisplayed", "commander.version", "commander.help"]);

/**
 * Runs svc-dl with `argv` (the arguments after the program name) and returns the exit code
 * (cli-contract "Exit codes"). The one place where errors become exit codes and messages:
 * one stderr line (or the `--json` error document), a stack only with `--verbose`. Never
 * calls `process.exit`. `svc-dl help pack get` is `svc-dl pack get --help` (cli-contract
 * "Commands").
 */
export async function main(argv: readonly string[], ctx: Context): Promise<number> {
  let session: Session | undefined;
  let commanderMessage = "";
  const program = buildProgram(
    ctx,
    (s, cmd) => {
      session = s;
      // the hints of the items a run settles name this command's flags (src/run/failure.ts)
      s.hints = hintContext(program, cmd);
    },
    (message) => {
      commanderMessage += message;
    },
    wantsVerbose(argv) ? verboseVersion(ctx.version).trimEnd() : ctx.version,
    (words) => argvProblem(ctx, words),
  );
  if (argv[0] === "help" && argv.length === 2 && argv[1] !== undefined) {
    const topic = helpTopic(argv[1]);
    if (topic !== undefined) {
      ctx.io.stdout.write(topic);
      return ExitCode.ok;
    }
  }
  const args = helpAsFlag(argv, program);
  try {
    await program.parseAsync(args, { from: "user" });
    return session?.exitCode ?? 0;
  } catch (thrown) {
    if (thrown instanceof CommanderError && HELP_CODES.has(thrown.code)) return 0;
    const at = commandAt(program, args);
    let err: unknown = thrown;
    if (thrown instanceof CommanderError) {
      err = new UsageError(commanderLine(commanderMessage || thrown.message, pathOf(at)), {
        code: thrown.code === "commander.unknownCommand" ? "unknown_command" : "usage_error",
      });
    }
    const svcError: SvcError = toSvcError(err);
    const hints = hintContext(program, at);
    // Parsed globals once a command ran; on a parse error, what commander had parsed of the
    // program's options by then (they are recognised before and after the command's name).
    const parsed = program.opts<{ json?: boolean; verbose?: boolean; color?: boolean }>();
    const globals = session?.globals ?? {
      json: parsed.json === true,
      verbose: parsed.verbose === true,
      color: parsed.color !== false,
    };
    if (globals.json) {
      ctx.io.stderr.write(`${JSON.stringify(jsonErrorDocument(svcError, hints))}\n`);
    } else {
      await loadColour();
      const chalk = colourFor(ctx.io.stderrIsTTY, ctx.env, !globals.color);
      ctx.io.stderr.write(`${formatErrorForHumans(svcError, chalk, globals.verbose, hints)}\n`);
    }
    return svcError.exitCode;
  } finally {
    await session?.close();
    ctx.ended?.();
  }
}

/** Thrown where a checked command line would start its command: see {@link argvProblem}. */
class CommandWouldStart extends Error {}

/**
 * What is wrong with `argv` (the words after `svc-dl`) as a command line, found without running
 * it: commander's parse of the whole tree (an unknown command or option, a missing or invalid
 * option value, a value not among an option's choices) and the checks made before any command
 * runs (`--max-duration`). Resolves the line `main` would print for it (without `svc-dl:` and
 * the code), or undefined when the command would start. Prints nothing; makes no request.
 * Help and `--version` count as problems: they print instead of running the command.
 */
export async function argvProblem(
  ctx: Context,
  argv: readonly string[],
): Promise<string | undefined> {
  const discard = new Writable({ write: (_chunk, _encoding, done) => done() });
  const io = { ...ctx.io, stdout: discard, stderr: discard, stdin: Readable.from([]) };
  let commanderMessage = "";
  const program = buildProgram(
    { ...ctx, io },
    () => {
      throw new CommandWouldStart();
    },
    (message) => {
      commanderMessage += message;
    },
  );
  try {
    await program.parseAsync([...argv], { from: "user" });
  } catch (thrown) {
    if (thrown instanceof CommandWouldStart) return undefined;
    if (thrown instanceof CommanderError) {
      if (HELP_CODES.has(thrown.code)) return "--help and --version print instead of running";
      return commanderLine(commanderMessage || thrown.message, pathOf(commandAt(program, argv)));
    }
    if (thrown instanceof UsageError) return thrown.message;
    throw thrown;
  }
  return undefined;
}

/** Whether `--verbose`/`-v` is among the words (what `--version` prints depends on it). */
function wantsVerbose(argv: readonly string[]): boolean {
  return argv.some((w) => w === "--verbose" || w === "-v");
}

/**
 * `help a b …` → `a b … --help`; `help x` for no command `x` → `x`, so the unknown command is
 * reported (with a suggestion) instead of the program's help; anything else unchanged.
 */
function helpAsFlag(argv: readonly string[], program: Command): string[] {
  if (argv[0] !== "help" || argv.length < 2) return [...argv];
  const known = program.commands.some(
    (c) => c.name() === argv[1] || c.aliases().includes(argv[1] ?? ""),
  );
  return known ? [...argv.slice(1), "--help"] : argv.slice(1, 2);
}

/** Commander's error text as one line: `unknown command 'x'; did you mean whoami?`. */
function commanderLine(text: string, at: string): string {
  const prefix = at ? `svc-dl ${at} ` : "svc-dl ";
  const line = text
    .replace(/^error:\s*/i, "")
    .replace(/\s*\n?\s*\(Did you mean (.+)\?\)/, (_m, word: string) =>
      word.startsWith("-") ? `; did you mean ${word}?` : `; did you mean \`${prefix}${word}\`?`,
    )
    .replace(/\s*\n\s*/g, " ")
    .trim();
  return /^unknown command/.test(line) && !line.includes("did you mean")
    ? `${line}; \`svc-dl --help\` lists the commands`
    : line;
}

/** The deepest command the words name (`["packs","sync","--x"]` → packs sync). */
export function commandAt(program: Command, argv: readonly string[]): Command {
  let cmd = program;
  for (const word of argv) {
    if (word.startsWith("-")) continue;
    const sub = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!sub) break;
    cmd = sub;
  }
  return cmd;
}

/** The command path without the program name: `"packs sync"`, or `""` for the program itself. */
function pathOf(cmd: Command): string {
  const words: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) words.unshift(c.name());
  return words.join(" ");
}

/**
 * What a hint may name for the command at hand: its own flags and its ancestors' (the global
 * options), which of them were given on the command line, and every command of the tree.
 */
export function hintContext(program: Command, at: Command): HintContext {
  const flags = new Set<string>(["--help", "-h"]);
  const given = new Set<string>();
  for (let c: Command | null = at; c; c = c.parent) {
    for (const o of c.options) {
      const names = [o.long, o.short].filter((n): n is string => typeof n === "string");
      for (const n of names) flags.add(n);
      if (c.getOptionValueSource(o.attributeName()) === "cli") {
        for (const n of names) given.add(n);
      }
    }
  }
  return {
    command: pathOf(at),
    has: (flag) => flags.has(flag),
    given: (flag) => given.has(flag),
    exists: (path) => {
      const words = path.split(" ").filter((w) => w !== "");
      const found = commandAt(program, words);
      return pathOf(found) === words.join(" ");
    },
  };
}
