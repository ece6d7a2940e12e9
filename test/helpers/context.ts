import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import type { Dispatcher } from "undici";
import type { Keyring } from "../../src/config/keyring.js";
import type { Context } from "../../src/context.js";
import type { Clock } from "../../src/model.js";
import { type ManualClock, manualClock } from "./clock.js";

/** A fresh, empty config directory for one run. */
export function tempConfigDir(): string {
  return mkdtempSync(join(tmpdir(), "svc-dl-config-"));
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

/** One case's outside world for an in-process run: every field optional. */
export interface TestContextOptions {
  /** The whole environment (nothing is inherited); `SVC_DL_CONFIG_DIR` defaults to a fresh dir. */
  env?: Record<string, string | undefined>;
  /** Text on stdin (closed after it); empty by default. */
  stdin?: string;
  stdoutIsTTY?: boolean;
  stderrIsTTY?: boolean;
  /** stderr is the systemd journal. */
  stderrIsJournal?: boolean;
  stdinIsTTY?: boolean;
  /** Terminal width of stderr. */
  columns?: number;
  cwd?: string;
  /** The clock for waits; by default one whose sleeps return at once, moving time on. */
  clock?: ManualClock;
  /** svc-dl's version for the User-Agent (default "0.0.0-test"). */
  version?: string;
  /** The HTTP transport (an undici MockAgent of stubs); default a real one per run. */
  dispatcher?: Dispatcher;
  /** The OS keyring of the run (none: keys go to the config file). */
  keyring?: Keyring;
}

/** A test Context and what it collects: see {@link testContext}. */
export interface TestContext {
  ctx: Context;
  /** What the run wrote to stdout and stderr. */
  stdout: { readonly text: string; readonly bytes: Buffer };
  stderr: { readonly text: string; readonly chunks: readonly Buffer[] };
  /** Aborting it is Ctrl-C for the run. */
  controller: AbortController;
}

/**
 * A Context for one in-process run: buffers for stdout and stderr, the given stdin text, TTY
 * flags (all false by default), columns, env and cwd, an abort controller, an instant clock
 * and, if given, the HTTP transport. `runCli` (test/helpers/cli.ts) runs `main(argv, ctx)` on
 * one; a test that calls a command's run function with `new Session(ctx, globals)` builds one
 * itself.
 */
export function testContext(opts: TestContextOptions = {}): TestContext {
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
      ...(opts.stderrIsJournal ? { stderrIsJournal: true } : {}),
      stdinIsTTY: opts.stdinIsTTY ?? false,
      ...(opts.columns !== undefined ? { columns: opts.columns } : {}),
    },
    env,
    cwd: opts.cwd ?? process.cwd(),
    version: opts.version ?? "0.0.0-test",
    signal: controller.signal,
    clock: instantClock(opts.clock ?? manualClock()),
    ...(opts.dispatcher ? { dispatcher: opts.dispatcher } : {}),
    ...(opts.keyring ? { keyring: opts.keyring } : {}),
  };
  return { ctx, stdout, stderr, controller };
}
