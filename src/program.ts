import { Command, Option } from "commander";
import { apiCommand } from "./commands/api/api.js";
import { assetCommand } from "./commands/asset/index.js";
import { assetsCommand } from "./commands/assets/index.js";
import { authCommand } from "./commands/auth/index.js";
import { whoamiCommand } from "./commands/auth/whoami.js";
import { cacheCommand } from "./commands/cache/index.js";
import {
  type ArgvCheck,
  examples,
  type OpenSession,
  parseWholeNumber,
} from "./commands/command-kit.js";
import { completionCommand } from "./commands/completion/completion.js";
import { configCommand } from "./commands/config/index.js";
import { doctorCommand } from "./commands/doctor/doctor.js";
import { installCommand } from "./commands/install/install.js";
import { legacyCommand } from "./commands/legacy/index.js";
import { packCommand } from "./commands/pack/index.js";
import { packsCommand } from "./commands/packs/index.js";
import { scheduleCommand } from "./commands/schedule/schedule.js";
import { verifyCommand } from "./commands/verify/verify.js";
import type { Context } from "./context.js";
import { ENVIRONMENT_VARIABLES } from "./environment-variables.js";
import { UsageError } from "./errors/usage-error.js";
import { loadColour } from "./io/colour.js";
import { wrap } from "./io/wrap.js";
import { durationSeconds } from "./pacing/units.js";
import { DEFAULT_GLOBALS, type GlobalOptions, Session } from "./session.js";

/**
 * Refuses a bad `--max-duration` before the command runs: UsageError `invalid_max_duration`
 * (exit 2), the code the library gives a bad `maxDuration` (as `--limit-rate` and `limitRate`
 * share `invalid_limit_rate`).
 */
async function checkMaxDuration(cmd: Command): Promise<void> {
  const text = cmd.optsWithGlobals<{ maxDuration?: string }>().maxDuration;
  if (text === undefined || durationSeconds(text) !== undefined) return;
  throw new UsageError(`--max-duration: ${JSON.stringify(text)} is not a duration`, {
    code: "invalid_max_duration",
  });
}

function globalsFrom(cmd: Command): GlobalOptions {
  const o = cmd.optsWithGlobals<Partial<Omit<GlobalOptions, "maxDuration">>>();
  // checked by checkMaxDuration before the action
  const maxDuration = durationSeconds(
    cmd.optsWithGlobals<{ maxDuration?: string }>().maxDuration ?? "",
  );
  return {
    ...DEFAULT_GLOBALS,
    ...(o.baseUrl !== undefined ? { baseUrl: o.baseUrl } : {}),
    json: o.json === true,
    quiet: o.quiet === true,
    progress: o.progress !== false,
    verbose: o.verbose === true,
    color: o.color !== false,
    maxWait: typeof o.maxWait === "number" ? o.maxWait : DEFAULT_GLOBALS.maxWait,
    ...(o.proxy !== undefined ? { proxy: o.proxy } : {}),
    ...(o.caFile !== undefined ? { caFile: o.caFile } : {}),
    waitLock: typeof o.waitLock === "number" ? o.waitLock : DEFAULT_GLOBALS.waitLock,
    ...(maxDuration !== undefined ? { maxDuration } : {}),
    ...(o.limitRate !== undefined ? { limitRate: o.limitRate } : {}),
    ...(o.offline === true ? { offline: true } : {}),
  };
}

/** Applies the settings every command needs (routed output, no process.exit) to a whole tree. */
function applySettings(cmd: Command, ctx: Context, onError: (message: string) => void): void {
  cmd.exitOverride();
  cmd.configureOutput({
    writeOut: (s) => ctx.io.stdout.write(s),
    writeErr: (s) => ctx.io.stderr.write(s),
    outputError: (s) => onError(s),
  });
  cmd.showSuggestionAfterError(true);
  cmd.configureHelp({ showGlobalOptions: true });
  for (const sub of cmd.commands) applySettings(sub, ctx, onError);
}

/** Adds the global options (cli-contract "Commands": global options) to the root command. */
function addGlobalOptions(program: Command): Command {
  return program
    .addOption(
      new Option("--base-url <url>", "service address (env SVC_BASE_URL, config base-url)"),
    )
    .option("--json", "print one JSON document on stdout; errors as JSON on stderr")
    .option("-q, --quiet", "print nothing but data and errors")
    .option("--no-progress", "no progress bars")
    .option("-v, --verbose", "one stderr line per HTTP exchange; stack traces on errors")
    .option("--no-color", "no colour (also NO_COLOR)")
    .addOption(
      new Option("--max-wait <seconds>", "longest total wait on rate limits before giving up")
        .argParser(parseWholeNumber)
        .default(300),
    )
    .addOption(
      new Option(
        "--proxy <url>",
        "proxy for every request (env HTTPS_PROXY/HTTP_PROXY, config proxy)",
      ),
    )
    .addOption(
      new Option(
        "--ca-file <path>",
        "extra trusted CA certificates, PEM (env SVC_CA_FILE, config ca-file)",
      ),
    )
    .addOption(
      new Option(
        "--wait-lock <seconds>",
        "commands that write a directory: wait up to this long for another run's lock (default 0: fail at once)",
      ).argParser(parseWholeNumber),
    )
    .addOption(
      new Option(
        "--max-duration <duration>",
        "stop starting items after this long (90s, 30m, 2h or seconds); exit 10, partial data kept",
      ),
    )
    .option(
      "--offline",
      "open no network connection: items not in the cache or the directory fail with offline (exit 8; env SVC_DL_OFFLINE=1)",
    )
    .addOption(
      new Option(
        "--limit-rate <rate>",
        "bytes per second for every download, like curl: 500K, 5M, 1G (env SVC_DL_LIMIT_RATE, config limit-rate)",
      ),
    );
}

/** The end of `svc-dl --help`: examples, environment variables, exit codes. */
const PROGRAM_HELP = `${examples(
  "svc-dl auth login",
  "svc-dl whoami",
  "svc-dl packs list",
  "svc-dl pack get forest-pack -o ./assets/",
  "svc-dl packs sync ~/assets --edition all",
)}
${wrap(`Environment: ${ENVIRONMENT_VARIABLES.map((v) => v.names[0]).join(", ")}.`, 80).join("\n")}
Exit codes: 0 ok, 1 failure, 2 usage, 3 auth, 4 not permitted, 5 not found,
6 rate limited, 7 server/network, 8 local file system, 9 lock mismatch,
10 --max-duration reached, 130/143 interrupted (or cancelled at a prompt).
More: \`svc-dl help exit-codes\` (every error code), \`svc-dl help environment\`.`;

/**
 * The top-level commands in `--help` order: one builder per noun (its `index.ts`, which adds
 * the verbs) or per top-level verb. Each builder imports only commander and command-kit; the
 * command's run module is loaded by its action.
 */
const COMMANDS: readonly ((open: OpenSession, checkArgv: ArgvCheck) => Command)[] = [
  authCommand,
  whoamiCommand,
  configCommand,
  apiCommand,
  completionCommand,
  packsCommand,
  packCommand,
  assetCommand,
  assetsCommand,
  legacyCommand,
  verifyCommand,
  doctorCommand,
  installCommand,
  cacheCommand,
  scheduleCommand,
];

/**
 * The commander tree: global options (cli-contract "Commands") and every subcommand. Command
 * modules load their heavy dependencies (undici, zod, conf) only when run, so `--help` and
 * `--version` stay fast. `onSession` receives the session and its command once a command runs;
 * `onCommanderError` receives commander's own error text (bad flags, missing arguments).
 * `versionText` is what `--version` prints (default: the version alone). `checkArgv` checks a
 * command line without running it (`svc-dl schedule` checks the flags it writes into a
 * schedule); by default every command line passes.
 */
export function buildProgram(
  ctx: Context,
  onSession: (session: Session, cmd: Command) => void,
  onCommanderError: (message: string) => void,
  versionText: string = ctx.version,
  checkArgv: ArgvCheck = async () => undefined,
): Command {
  const open: OpenSession = (cmd) => {
    const session = new Session(ctx, globalsFrom(cmd));
    onSession(session, cmd);
    return session;
  };
  const program = addGlobalOptions(
    new Command("svc-dl")
      .description(
        "Download the 3D asset packs and assets you own from the asset download service:\nresumable, verified, rate-limit aware.",
      )
      .version(
        versionText,
        "-V, --version",
        "print the svc-dl version (with -v: Node and undici too)",
      )
      .helpOption("-h, --help", "show help for a command")
      // chalk loads only when a command runs, never for --help/--version (start-up time)
      .hook("preAction", async (_program, action) => {
        await loadColour();
        await checkMaxDuration(action);
      }),
  ).addHelpText("after", PROGRAM_HELP);
  for (const command of COMMANDS) program.addCommand(command(open, checkArgv));
  applySettings(program, ctx, onCommanderError);
  return program;
}
