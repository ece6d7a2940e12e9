import { spawn } from "node:child_process";
import type { Writable } from "node:stream";
import type { RunItem } from "./recorder.js";

/** The longest an `--on-item` call may run before it is killed (cli-contract: at most 60 s). */
export const ON_ITEM_TIMEOUT_MS = 60_000;

/**
 * Variables never passed to a hook: svc-dl's credentials and where its key files are
 * (cli-contract: never a key).
 */
const SECRET_VARS = new Set([
  "SVC_API_KEY",
  "SVC_LICENSE_KEY",
  "SVC_API_KEY_FILE",
  "CREDENTIALS_DIRECTORY",
]);

/** Options of {@link ItemHooks}. */
export interface ItemHookOptions {
  /** The run's environment (the hook gets it without the keys). */
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** Where the hook's stdout and stderr go (svc-dl's stderr); discarded when undefined. */
  output: Writable | undefined;
  /** Called with one line when a call fails, times out or cannot start. */
  warn: (message: string) => void;
  /** Per-call limit in ms; {@link ON_ITEM_TIMEOUT_MS} unless a test gives a shorter one. */
  timeoutMs?: number;
}

/**
 * `--on-item CMD` (cli-contract "Operating unattended"): after each item settles, runs CMD with
 * `/bin/sh -c`, the item's JSON document on stdin and `SVC_DL_ITEM_STATUS`, `SVC_DL_ITEM_PATH`,
 * `SVC_DL_ITEM_SLUG` in its environment, never `SVC_API_KEY` or `SVC_LICENSE_KEY`. Calls run one
 * at a time, in the order the items settled, while the run goes on; {@link drain} waits for
 * them. A call that exits non-zero, is killed, or outlives the timeout (its process group is then
 * killed) is a warning, never a failed item.
 */
export class ItemHooks {
  readonly #command: string;
  readonly #opts: ItemHookOptions;
  #queue: Promise<void> = Promise.resolve();

  constructor(command: string, opts: ItemHookOptions) {
    this.#command = command;
    this.#opts = opts;
  }

  /** Queues the hook for one settled item. */
  push(item: RunItem): void {
    this.#queue = this.#queue.then(() => this.#call(item));
  }

  /** Resolves when every queued call has ended. */
  drain(): Promise<void> {
    return this.#queue;
  }

  async #call(item: RunItem): Promise<void> {
    const slug = typeof item.slug === "string" ? item.slug : "";
    const problem = await runHook(this.#command, item, this.#opts);
    if (problem) this.#opts.warn(`--on-item for ${slug || "an item"} ${problem}`);
  }
}

/** The hook's environment: the run's, without keys, with the item's three variables. */
export function hookEnv(
  env: Readonly<Record<string, string | undefined>>,
  item: RunItem,
): Record<string, string> {
  return hookEnvWith(env, {
    SVC_DL_ITEM_STATUS: item.status,
    SVC_DL_ITEM_PATH: typeof item.path === "string" ? item.path : "",
    SVC_DL_ITEM_SLUG: typeof item.slug === "string" ? item.slug : "",
  });
}

/** A hook's environment: the run's without svc-dl's credentials, plus `vars`. */
export function hookEnvWith(
  env: Readonly<Record<string, string | undefined>>,
  vars: Readonly<Record<string, string>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v !== undefined && !SECRET_VARS.has(k)) out[k] = v;
  }
  return Object.assign(out, vars);
}

/**
 * Runs one `--on-item` call; resolves with what went wrong (`exited with code 3`, `timed out
 * after 60 s`, `could not start: …`) or undefined when it exited 0. Never rejects.
 */
export function runHook(
  command: string,
  item: RunItem,
  opts: ItemHookOptions,
): Promise<string | undefined> {
  return runShellHook(command, item, hookEnv(opts.env, item), opts);
}

/**
 * Runs `command` with `/bin/sh -c` in its own process group, `payload` as one JSON line on its
 * stdin and `env` as its environment; its output goes to `opts.output` (or nowhere). The
 * group is killed after `opts.timeoutMs` ({@link ON_ITEM_TIMEOUT_MS}). Resolves with what went
 * wrong, or undefined when it exited 0; never rejects.
 */
export function runShellHook(
  command: string,
  payload: unknown,
  env: Record<string, string>,
  opts: Pick<ItemHookOptions, "cwd" | "output" | "timeoutMs">,
): Promise<string | undefined> {
  const timeoutMs = opts.timeoutMs ?? ON_ITEM_TIMEOUT_MS;
  return new Promise((resolve) => {
    const child = spawn("/bin/sh", ["-c", command], {
      cwd: opts.cwd,
      env,
      stdio: ["pipe", opts.output ? "pipe" : "ignore", opts.output ? "pipe" : "ignore"],
      detached: true,
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, timeoutMs);
    if (opts.output) {
      child.stdout?.on("data", (d: Buffer) => opts.output?.write(d));
      child.stderr?.on("data", (d: Buffer) => opts.output?.write(d));
    }
    child.stdin?.on("error", () => {}); // a hook that does not read its stdin
    child.stdin?.end(`${JSON.stringify(payload)}\n`);
    child.on("error", (err) => {
      clearTimeout(timer);
      resolve(`could not start: ${err.message}`);
    });
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      if (timedOut) resolve(`timed out after ${timeoutMs / 1e3} s and was stopped`);
      else if (code !== 0)
        resolve(code === null ? `was killed (${signal})` : `exited with code ${code}`);
      else resolve(undefined);
    });
  });
}

/** Kills a hook's whole process group (the shell and what it started). */
function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // already gone
  }
}
