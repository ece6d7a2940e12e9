import { spawn } from "node:child_process";
import { CLI_BIN, tempConfigDir } from "./cli.js";

/** What a CLI run on a pseudo-terminal displayed (stdout and stderr interleaved, as a user sees). */
export interface TerminalRun {
  code: number | null;
  screen: string;
}

/**
 * Runs `svc-dl ...args` on a pseudo-terminal through util-linux `script`, so stdout, stderr and
 * stdin are all TTYs, and returns everything the terminal displayed. `env` is merged over the
 * process environment with a fresh config directory; `cwd` is the working directory.
 */
export function runOnTerminal(
  args: string[],
  opts: { env: Record<string, string>; cwd: string; timeoutMs?: number },
): Promise<TerminalRun> {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const cmd = [process.execPath, CLI_BIN, ...args].map(quote).join(" ");
  return new Promise((resolve, reject) => {
    const child = spawn("script", ["-qefc", cmd, "/dev/null"], {
      cwd: opts.cwd,
      env: { ...process.env, SVC_DL_CONFIG_DIR: tempConfigDir(), COLUMNS: "100", ...opts.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let screen = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      screen += d;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 30_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, screen });
    });
    child.stdin.end();
  });
}
