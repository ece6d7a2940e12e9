import { fstatSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Dispatcher } from "undici";
import { type Keyring, osKeyring } from "./config/keyring.js";
import { InterruptedError } from "./errors/interrupted-error.js";
import { type IOStreams, isJournalStream } from "./io/streams.js";
import type { Clock } from "./model.js";

/**
 * Everything a run needs from the outside world. `systemContext()` is the only place that
 * reads `process.*`; tests build their own with buffers and a temp directory.
 */
export interface Context {
  readonly io: IOStreams;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Working directory for relative paths, absolute. */
  readonly cwd: string;
  /** svc-dl's own version (`User-Agent: svc-dl/<version>`). */
  readonly version: string;
  /** Aborted on SIGINT/SIGTERM, with an InterruptedError as its reason. */
  readonly signal: AbortSignal;
  /**
   * The clock waits use (retry backoff, rate-limit waits); the system clock when absent. Tests
   * give one that moves time on instead of sleeping.
   */
  readonly clock?: Clock;
  /**
   * The HTTP transport of every request; by default one keep-alive agent (or proxy agent) per
   * run, built from the network settings. Tests give an undici `MockAgent` with
   * `disableNetConnect()`, whose unused interceptors fail the test. An injected dispatcher is
   * not closed at the end of the run.
   */
  readonly dispatcher?: Dispatcher;
  /**
   * The OS keyring `auth login` stores keys in and later runs read them from (config/keyring.ts);
   * none (the config file only) when absent. `systemContext()` gives the real one; tests give
   * none, or a real Secret Service in a child process of their own.
   */
  readonly keyring?: Keyring;
  /** Called by `main()` once the run has ended (its exit code decided). */
  readonly ended?: () => void;
}

/** The package version, read once from package.json next to `dist/` or `src/`. */
export function packageVersion(): string {
  const raw = readFileSync(new URL("../package.json", import.meta.url), "utf8");
  const parsed = JSON.parse(raw) as { version?: unknown };
  return typeof parsed.version === "string" ? parsed.version : "0.0.0";
}

/**
 * The absolute paths of the Node binary running svc-dl and of svc-dl's own `bin/svc-dl.js`
 * (next to `dist/` or `src/`), which `svc-dl schedule` writes into the units and the crontab
 * line it prints (cli-contract "Credentials, schedules and offline runs").
 */
export function programPaths(): { node: string; script: string } {
  return {
    node: process.execPath,
    script: fileURLToPath(new URL("../bin/svc-dl.js", import.meta.url)),
  };
}

/** The device and inode of stderr (fd 2), or undefined when it cannot be told. */
function stderrStats(): { dev: number; ino: number } | undefined {
  if (!process.env.JOURNAL_STREAM) return undefined;
  try {
    return fstatSync(2);
  } catch {
    return undefined;
  }
}

/** The width of the terminal on stderr, else `COLUMNS`, else unknown. */
function terminalColumns(): number | undefined {
  const fromEnv = Number(process.env.COLUMNS);
  return process.stderr.columns || (Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : undefined);
}

function columnsField(columns: number | undefined): { columns?: number } {
  return columns === undefined ? {} : { columns };
}

/**
 * The real process: its streams, environment and working directory, and a signal aborted by
 * the first SIGINT or SIGTERM (a second one exits at once with 130/143).
 */
export function systemContext(): Context {
  const controller = new AbortController();
  const onSignal = (signal: "SIGINT" | "SIGTERM") => {
    if (controller.signal.aborted) {
      process.exit(signal === "SIGINT" ? 130 : 143);
    }
    controller.abort(new InterruptedError(signal));
  };
  process.on("SIGINT", () => onSignal("SIGINT"));
  process.on("SIGTERM", () => onSignal("SIGTERM"));
  // A closed pipe (`svc-dl packs list --json | head`, `pack get x -o - | head -c 100`) is the
  // reader's choice, not our failure: stop quietly with 0 as other Unix tools do, instead of
  // crashing with EPIPE; a run that had already ended keeps its own exit code.
  let ended = false;
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") process.exit(ended ? (process.exitCode ?? 0) : 0);
    throw err;
  });
  return {
    ended: () => {
      ended = true;
    },
    io: {
      stdout: process.stdout,
      stderr: process.stderr,
      // stdin is opened only when a command reads it (opening it costs ~1.3 ms of start-up)
      get stdin() {
        return process.stdin;
      },
      stdoutIsTTY: process.stdout.isTTY === true,
      stderrIsTTY: process.stderr.isTTY === true,
      get stdinIsTTY() {
        return process.stdin.isTTY === true;
      },
      ...columnsField(terminalColumns()),
      stderrIsJournal: isJournalStream(process.env.JOURNAL_STREAM, stderrStats()),
    },
    env: process.env,
    cwd: process.cwd(),
    version: packageVersion(),
    signal: controller.signal,
    keyring: osKeyring(process.platform, process.env),
  };
}
