import { PassThrough, Writable } from "node:stream";
import type { Dispatcher } from "undici";
import { main } from "../../src/cli.js";
import type { Context } from "../../src/context.js";
import { InterruptedError } from "../../src/errors/interrupted-error.js";
import type { Clock } from "../../src/model.js";
import { assertNoSecrets, registerRunSecrets, tempConfigDir } from "./cli.js";
import { type ManualClock, manualClock } from "./clock.js";

/** What one in-process run of `main()` produced. */
export interface MainResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** stdout as the raw bytes written (for `-o -`). */
  stdoutBytes: Buffer;
}

/** One case's outside world: all optional; defaults are a non-TTY run with a fresh config dir. */
export interface MainOptions {
  /** Environment (no inherited values); `SVC_DL_CONFIG_DIR` defaults to a fresh temp dir. */
  env?: Record<string, string | undefined>;
  /** Text on stdin (closed after it); empty by default. */
  stdin?: string;
  stdoutIsTTY?: boolean;
  stderrIsTTY?: boolean;
  stdinIsTTY?: boolean;
  /** Terminal width of stderr. */
  columns?: number;
  cwd?: string;
  /** The clock for waits; by default one whose sleeps return at once, moving time on. */
  clock?: ManualClock;
  /** svc-dl's version for the User-Agent (default "0.0.0-test"). */
  version?: string;
  /** Abort the run (as Ctrl-C would) after this many real milliseconds. */
  timeoutMs?: number;
  /** The HTTP transport (an undici MockAgent of stubs); default a real one per run. */
  dispatcher?: Dispatcher;
}

/** A clock whose `sleep` moves the manual clock on and returns at once (never sleeps for real). */
export function instantClock(clock: ManualClock): Clock {
  return {
    now: () => clock.now(),
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      clock.advance(ms);
    },
  };
}

/** A stream collecting what is written to it. */
class Collector extends Writable {
  readonly chunks: Buffer[] = [];
  override _write(chunk: unknown, enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk), enc));
    cb();
  }
  get bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
  get text(): string {
    return this.bytes.toString("utf8");
  }
}

/** A test Context and what it collects: see {@link testContext}. */
export interface TestContext {
  ctx: Context;
  /** What the run wrote to stdout and stderr. */
  stdout: { readonly text: string; readonly bytes: Buffer };
  stderr: { readonly text: string };
  /** Aborting it is Ctrl-C for the run. */
  controller: AbortController;
}

/**
 * A Context for one in-process run: buffers for stdout and stderr, the given stdin text, TTY
 * flags, columns, env (a fresh `SVC_DL_CONFIG_DIR` unless given) and cwd, an abort controller,
 * an instant clock and, if given, the HTTP transport. For calling a command's run function
 * with `new Session(ctx, globals)` without going through `main()`.
 */
export function testContext(opts: MainOptions = {}): TestContext {
  const stdout = new Collector();
  const stderr = new Collector();
  const stdin = new PassThrough();
  stdin.end(opts.stdin ?? "");
  const env = { SVC_DL_CONFIG_DIR: tempConfigDir(), ...opts.env };
  const controller = new AbortController();
  const ctx: Context = {
    io: {
      stdout,
      stderr,
      stdin,
      stdoutIsTTY: opts.stdoutIsTTY ?? false,
      stderrIsTTY: opts.stderrIsTTY ?? false,
      stdinIsTTY: opts.stdinIsTTY ?? false,
      ...(opts.columns !== undefined ? { columns: opts.columns } : {}),
    },
    env,
    cwd: opts.cwd ?? process.cwd(),
    version: opts.version ?? "0.0.0-test",
    signal: controller.signal,
    clock: instantClock(opts.clock ?? manualClock()),
    ...(opts.dispatcher ? { dispatcher: opts.dispatcher } : {}),
  };
  return { ctx, stdout, stderr, controller };
}

/**
 * Calls `main(argv, ctx)` in-process with a test Context: buffers for stdout and stderr, the
 * given stdin text, TTY flags, columns, env and cwd, a never-aborted signal and an instant clock.
 * Returns the exit code and both outputs; fails if a registered secret appears in either.
 */
export async function runMain(argv: string[], opts: MainOptions = {}): Promise<MainResult> {
  const { ctx, stdout, stderr, controller } = testContext(opts);
  const timer =
    opts.timeoutMs === undefined
      ? undefined
      : setTimeout(() => controller.abort(new InterruptedError("SIGINT")), opts.timeoutMs);
  const exitCode = await main(argv, ctx).finally(() => clearTimeout(timer));
  const out = stdout.text;
  const err = stderr.text;
  assertNoSecrets(out, `stdout of svc-dl ${argv.join(" ")}`);
  assertNoSecrets(err, `stderr of svc-dl ${argv.join(" ")}`);
  return { exitCode, stdout: out, stderr: err, stdoutBytes: stdout.bytes };
}

/** Options of {@link runCommand}: the spawn helper's options, for in-process runs. */
export interface RunCommandOptions {
  env?: Record<string, string | undefined>;
  /** Text on stdin. */
  input?: string;
  cwd?: string;
  /** More secrets that must never appear in the output. */
  secrets?: string[];
  clock?: ManualClock;
  stdinIsTTY?: boolean;
  stdoutIsTTY?: boolean;
  stderrIsTTY?: boolean;
  columns?: number;
  dispatcher?: Dispatcher;
}

/**
 * `runMain` with the spawn helper's shape (`{code, stdout, stderr}`), so command tests read the
 * same whether in-process or not. Registers the API and license keys of `env`, the stdin text
 * and `secrets` for the secret scan.
 */
export async function runCommand(
  args: string[],
  opts: RunCommandOptions = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  registerRunSecrets(opts.env ?? {}, opts.input, opts.secrets);
  const r = await runMain(args, {
    ...(opts.env ? { env: opts.env } : {}),
    ...(opts.input !== undefined ? { stdin: opts.input } : {}),
    ...(opts.cwd !== undefined ? { cwd: opts.cwd } : {}),
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.stdinIsTTY !== undefined ? { stdinIsTTY: opts.stdinIsTTY } : {}),
    ...(opts.stdoutIsTTY !== undefined ? { stdoutIsTTY: opts.stdoutIsTTY } : {}),
    ...(opts.stderrIsTTY !== undefined ? { stderrIsTTY: opts.stderrIsTTY } : {}),
    ...(opts.columns !== undefined ? { columns: opts.columns } : {}),
    ...(opts.dispatcher ? { dispatcher: opts.dispatcher } : {}),
  });
  return { code: r.exitCode, stdout: r.stdout, stderr: r.stderr };
}
