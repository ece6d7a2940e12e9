import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import type { Dispatcher } from "undici";
import type { Keyring } from "../../src/config/keyring.js";
import type { Clock } from "../../src/model.js";
import type { ManualClock } from "./clock.js";
import { tempConfigDir } from "./context.js";

// The CLI under test, two ways: `runCli` runs `main(argv, ctx)` in-process with test IO (every
// command test); `launchCli`/`spawnCli` start `node bin/svc-dl.js` as a child process, only for
// what needs one: signals, a real terminal, a second process holding a lock, a preload, the
// bin/ wiring. Both start from the same clean environment and scan their output for secrets.

export { tempConfigDir } from "./context.js";

/** Path of the built CLI entry point, as a user runs it. */
const CLI_BIN = fileURLToPath(new URL("../../bin/svc-dl.js", import.meta.url));

/** What a CLI run produced. */
export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** stdout as the raw bytes written (for `-o -`). */
  stdoutBytes: Buffer;
}

/** What an in-process run produced: the same, and each write to stderr in order. */
export interface InProcessResult extends CliResult {
  code: number;
  /** stderr as written, one string per write (a terminal's screen is rebuilt from them). */
  stderrWrites: string[];
}

/** What both ways of running the CLI take. */
interface CommonOptions {
  /** Extra environment (merged over a clean one with its own temp config dir; undefined deletes). */
  env?: Record<string, string | undefined>;
  /** Text written to stdin (stdin is closed after it). */
  input?: string;
  cwd?: string;
  /** In-process: abort the run as Ctrl-C would; child process: SIGKILL. After this many ms (60 s). */
  timeoutMs?: number;
  /** More secrets that must never appear in the output. */
  secrets?: string[];
}

/** Options of {@link runCli}: the run's outside world. */
export interface RunCliOptions extends CommonOptions {
  /** The clock (default: a manual clock whose sleeps return at once, moving time on). */
  clock?: ManualClock;
  stdinIsTTY?: boolean;
  stdoutIsTTY?: boolean;
  stderrIsTTY?: boolean;
  /** Terminal width of stderr. */
  columns?: number;
  /** The HTTP transport (an undici MockAgent of stubs); default a real one per run. */
  dispatcher?: Dispatcher;
  /** The OS keyring of an in-process run (none: keys go to the config file). */
  keyring?: Keyring;
  /** The run's clock itself, instead of the instant one over `clock` (e.g. one whose waits yield). */
  waits?: Clock;
  /** The run's stdout (e.g. a slow consumer); `stdout`/`stdoutBytes` are then empty. */
  stdout?: Writable;
  /** Called once the run started, with a function that interrupts it as Ctrl-C would. */
  onStart?: (interrupt: () => void) => void;
}

/** Options of {@link launchCli} and {@link spawnCli}. */
export interface LaunchOptions extends CommonOptions {
  /** Leave stdin open (without `input`) for the test to write to `child.stdin`. */
  keepStdin?: boolean;
  /**
   * Run on a pseudo-terminal (util-linux `script`): stdin, stdout and stderr are one TTY of
   * `COLUMNS` (default 100) columns, and everything it displays is `stdout`.
   */
  terminal?: boolean;
  /** Options for node itself before the program, e.g. `--trace-gc` (not allowed in NODE_OPTIONS). */
  nodeArgs?: string[];
}

/** Every full secret a test registered; any output containing one fails the test. */
const knownSecrets = new Set<string>();

/** Registers a full key that must never appear in any captured output, state or config file. */
export function registerSecret(secret: string): void {
  if (secret.length >= 12) knownSecrets.add(secret);
}

/** Throws when `text` contains a registered secret. */
export function assertNoSecrets(text: string, where: string): void {
  for (const secret of knownSecrets) {
    if (text.includes(secret)) {
      throw new Error(`secret scan: a full key (${secret.slice(0, 12)}…) appeared in ${where}`);
    }
  }
}

/**
 * The user cache root of this test process's runs (`XDG_CACHE_HOME`): a temp directory, so no
 * run reads or writes the real ~/.cache (the download cache).
 */
let testCacheHome: string | undefined;

/**
 * Variables a test run never inherits: colour switches, and what would reach the developer's
 * own credentials (their D-Bus session, so a child's `auth login` never writes into their OS
 * keyring; a systemd credentials directory).
 */
const ISOLATED = new Set([
  "NO_COLOR",
  "FORCE_COLOR",
  "DBUS_SESSION_BUS_ADDRESS",
  "CREDENTIALS_DIRECTORY",
  "JOURNAL_STREAM",
]);

/**
 * The environment a CLI run starts from: this process's, without SVC_* values and the
 * {@link ISOLATED} ones, with a fresh temp SVC_DL_CONFIG_DIR and this test process's temp XDG_CACHE_HOME,
 * then `extra` (undefined deletes).
 */
export function cleanEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith("SVC_") && !ISOLATED.has(k)) env[k] = v;
  }
  env.SVC_DL_CONFIG_DIR = tempConfigDir();
  testCacheHome ??= mkdtempSync(join(tmpdir(), "svc-dl-test-cache-home-"));
  env.XDG_CACHE_HOME = testCacheHome;
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** The clean environment of a run, with its keys, stdin text and `secrets` registered. */
function runEnv(opts: CommonOptions): Record<string, string> {
  const env = cleanEnv(opts.env);
  for (const s of [
    env.SVC_API_KEY,
    env.SVC_LICENSE_KEY,
    opts.input?.trim(),
    ...(opts.secrets ?? []),
  ]) {
    if (s) registerSecret(s);
  }
  return env;
}

function scanOutput(args: string[], stdout: string, stderr: string): void {
  assertNoSecrets(stdout, `stdout of svc-dl ${args.join(" ")}`);
  assertNoSecrets(stderr, `stderr of svc-dl ${args.join(" ")}`);
}

/**
 * Runs `svc-dl ...args` in-process through `main(argv, ctx)` with a test Context
 * (test/helpers/context.ts): the environment a spawned run would get (see {@link cleanEnv}),
 * buffers for stdout and stderr, no TTY unless asked, the real package version and an instant
 * clock (retry and rate-limit waits move a manual clock on instead of sleeping). `timeoutMs`
 * aborts the run as Ctrl-C would. Output is scanned for registered secrets.
 */
export async function runCli(args: string[], opts: RunCliOptions = {}): Promise<InProcessResult> {
  const env = runEnv(opts);
  const { main } = await import("../../src/cli.js");
  const { packageVersion } = await import("../../src/context.js");
  const { InterruptedError } = await import("../../src/errors/interrupted-error.js");
  const { testContext } = await import("./context.js");
  const { ctx, stdout, stderr, controller } = testContext({
    env,
    version: packageVersion(),
    ...(opts.input !== undefined ? { stdin: opts.input } : {}),
    ...(opts.cwd !== undefined ? { cwd: opts.cwd } : {}),
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.stdinIsTTY !== undefined ? { stdinIsTTY: opts.stdinIsTTY } : {}),
    ...(opts.stdoutIsTTY !== undefined ? { stdoutIsTTY: opts.stdoutIsTTY } : {}),
    ...(opts.stderrIsTTY !== undefined ? { stderrIsTTY: opts.stderrIsTTY } : {}),
    ...(opts.columns !== undefined ? { columns: opts.columns } : {}),
    ...(opts.dispatcher ? { dispatcher: opts.dispatcher } : {}),
    ...(opts.keyring ? { keyring: opts.keyring } : {}),
  });
  const interrupt = (): void => controller.abort(new InterruptedError("SIGINT"));
  const timer = setTimeout(interrupt, opts.timeoutMs ?? 60_000);
  const running = main(args, {
    ...ctx,
    ...(opts.waits ? { clock: opts.waits } : {}),
    ...(opts.stdout ? { io: { ...ctx.io, stdout: opts.stdout } } : {}),
  });
  opts.onStart?.(interrupt);
  const code = await running.finally(() => clearTimeout(timer));
  scanOutput(args, stdout.text, stderr.text);
  return {
    code,
    signal: null,
    stdout: stdout.text,
    stderr: stderr.text,
    stdoutBytes: stdout.bytes,
    stderrWrites: stderr.chunks.map((c) => c.toString("utf8")),
  };
}

/**
 * The command line that runs `svc-dl ...args` (`node bin/svc-dl.js …`), for a test whose own
 * launcher must wrap it (a D-Bus session, a shell script); prefer {@link launchCli}.
 */
export function cliArgv(args: string[]): string[] {
  return [process.execPath, CLI_BIN, ...args];
}

/** A CLI process started by {@link launchCli}. */
export interface LaunchedCli {
  child: ChildProcessWithoutNullStreams;
  /** Resolves once `text` appears on stdout or stderr; rejects if the process ends first. */
  waitFor(text: string): Promise<void>;
  /** The process's end; rejects when a registered secret appeared in its output. */
  done: Promise<CliResult>;
}

/**
 * Starts `node bin/svc-dl.js ...args` as a child process with the clean environment of
 * {@link cleanEnv} (on a pseudo-terminal with `terminal`) and hands it back, so a test can send
 * it a signal, type at its prompt or wait for a line. SIGKILL after `timeoutMs` (60 s).
 */
export function launchCli(args: string[], opts: LaunchOptions = {}): LaunchedCli {
  const env = runEnv(opts);
  const child = opts.terminal
    ? spawn(
        "script",
        [
          "-qefc",
          [process.execPath, ...(opts.nodeArgs ?? []), CLI_BIN, ...args].map(shellQuote).join(" "),
          "/dev/null",
        ],
        {
          cwd: opts.cwd ?? process.cwd(),
          env: { COLUMNS: "100", ...env },
        },
      )
    : spawn(process.execPath, [...(opts.nodeArgs ?? []), CLI_BIN, ...args], {
        cwd: opts.cwd ?? process.cwd(),
        env,
      });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const waiters: { text: string; resolve: () => void }[] = [];
  const seen = (): void => {
    const all = Buffer.concat(out).toString("utf8") + Buffer.concat(err).toString("utf8");
    for (const w of waiters.filter((w) => all.includes(w.text))) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  };
  child.stdout.on("data", (d: Buffer) => {
    out.push(d);
    if (waiters.length > 0) seen();
  });
  child.stderr.on("data", (d: Buffer) => {
    err.push(d);
    if (waiters.length > 0) seen();
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 60_000);
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const stdoutBytes = Buffer.concat(out);
      const r = {
        code,
        signal,
        stdout: stdoutBytes.toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
        stdoutBytes,
      };
      try {
        scanOutput(args, r.stdout, r.stderr);
      } catch (e) {
        reject(e);
        return;
      }
      resolve(r);
    });
  });
  if (opts.input !== undefined) child.stdin.end(opts.input);
  else if (!opts.keepStdin) child.stdin.end();
  const waitFor = (text: string): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      waiters.push({ text, resolve });
      seen();
      done.then(
        () =>
          reject(
            new Error(`svc-dl ${args.join(" ")} ended before printing ${JSON.stringify(text)}`),
          ),
        reject,
      );
    });
  return { child, waitFor, done };
}

/** {@link launchCli} and wait for its end: what it printed, its exit code or signal. */
export function spawnCli(args: string[], opts: LaunchOptions = {}): Promise<CliResult> {
  return launchCli(args, opts).done;
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
