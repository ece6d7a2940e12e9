import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ManualClock } from "./clock.js";

/** Path of the built CLI entry point, as a user runs it. */
export const CLI_BIN = fileURLToPath(new URL("../../bin/svc-dl.js", import.meta.url));

/** What a spawned CLI run produced. */
export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** stdout as raw bytes (in-process runs only). */
  stdoutBytes?: Buffer;
}

/** Options of {@link runCli}. */
export interface RunCliOptions {
  /** Extra environment (merged over a clean one with its own temp config dir). */
  env?: Record<string, string | undefined>;
  /** Text written to stdin (stdin is closed after it). */
  input?: string;
  cwd?: string;
  /** Kill the process after this many ms (default 60 s). */
  timeoutMs?: number;
  /** More secrets that must never appear in the output. */
  secrets?: string[];
  /** The clock of an in-process run (default: a manual clock whose sleeps return at once). */
  clock?: ManualClock;
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

/** A fresh, empty config directory for one run. */
export function tempConfigDir(): string {
  return mkdtempSync(join(tmpdir(), "svc-dl-config-"));
}

/**
 * The environment a CLI run starts from: this process's, without SVC_* values, NO_COLOR and
 * FORCE_COLOR, with a fresh temp SVC_DL_CONFIG_DIR, then `extra` (undefined deletes).
 */
export function cleanEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith("SVC_") && k !== "NO_COLOR" && k !== "FORCE_COLOR")
      env[k] = v;
  }
  env.SVC_DL_CONFIG_DIR = tempConfigDir();
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** Registers the API and license keys of `env`, the stdin text and `secrets` for the secret scan. */
export function registerRunSecrets(
  env: Record<string, string | undefined>,
  input: string | undefined,
  secrets: string[] = [],
): void {
  for (const s of [env.SVC_API_KEY, env.SVC_LICENSE_KEY, input?.trim(), ...secrets]) {
    if (s) registerSecret(s);
  }
}

/**
 * Runs `svc-dl ...args` in-process through `main(argv, ctx)` (test/helpers/run-main.ts) with
 * the environment a spawned run would get (see {@link cleanEnv}), pipes (no TTY), the real
 * package version and an instant clock (retry and rate-limit waits move a manual clock on
 * instead of sleeping). `timeoutMs` aborts the run as Ctrl-C would. Output is scanned for
 * registered secrets. Use {@link spawnCli} only for what needs a real process.
 */
export async function runCli(args: string[], opts: RunCliOptions = {}): Promise<CliResult> {
  const env = cleanEnv(opts.env);
  registerRunSecrets(env, opts.input, opts.secrets);
  const { runMain } = await import("./run-main.js");
  const { packageVersion } = await import("../../src/context.js");
  const r = await runMain(args, {
    env,
    ...(opts.input !== undefined ? { stdin: opts.input } : {}),
    ...(opts.cwd !== undefined ? { cwd: opts.cwd } : {}),
    ...(opts.clock ? { clock: opts.clock } : {}),
    version: packageVersion(),
    timeoutMs: opts.timeoutMs ?? 60_000,
  });
  return {
    code: r.exitCode,
    signal: null,
    stdout: r.stdout,
    stderr: r.stderr,
    stdoutBytes: r.stdoutBytes,
  };
}

/**
 * Spawns `node bin/svc-dl.js ...args` with a clean environment (no inherited SVC_* values,
 * NO_COLOR unset, a temp SVC_DL_CONFIG_DIR unless given) and collects its output. The API and
 * license keys of `env`, stdin input and `secrets` are registered and scanned for in stdout
 * and stderr.
 */
export function spawnCli(args: string[], opts: RunCliOptions = {}): Promise<CliResult> {
  const env = cleanEnv(opts.env);
  registerRunSecrets(env, opts.input, opts.secrets);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_BIN, ...args], {
      cwd: opts.cwd ?? process.cwd(),
      env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 60_000);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      try {
        assertNoSecrets(stdout, `stdout of svc-dl ${args.join(" ")}`);
        assertNoSecrets(stderr, `stderr of svc-dl ${args.join(" ")}`);
      } catch (err) {
        reject(err);
        return;
      }
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.end(opts.input ?? "");
  });
}
