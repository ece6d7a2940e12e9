import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type InProcessResult, runCli } from "../../helpers/cli.js";

/** Words after `--` that a careless quoting would split, expand or run. */
export const HOSTILE_FLAGS = [
  "--include",
  "two words",
  "--include",
  "it's",
  "--include",
  '"quoted"',
  "--category",
  "%h%n%%",
  "--category",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${USER} is the point
  "$HOME${USER}$$",
  "--category",
  "`id` $(id) ; & | > <",
  "--exclude",
  "back\\slash\\",
  "--exclude",
  ";",
  "--exclude",
  "*",
  "--category=é ü 字",
];

/** A home of its own for one case: config, state and unit folders inside it, and a key file. */
export interface ScheduleHome {
  readonly root: string;
  readonly env: Record<string, string>;
  readonly unitDir: string;
  readonly stateDir: string;
  readonly keyFile: string;
}

/** A fresh home: XDG_CONFIG_HOME and XDG_STATE_HOME under it, a 0600 key file holding `key`. */
export function scheduleHome(key = "svc_live_schedule_test_key_0123456789"): ScheduleHome {
  const root = mkdtempSync(join(tmpdir(), "svc-dl-schedule-"));
  const keyFile = join(root, "api-key");
  writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });
  chmodSync(keyFile, 0o600);
  return {
    root,
    env: {
      HOME: root,
      XDG_CONFIG_HOME: join(root, "config"),
      XDG_STATE_HOME: join(root, "state"),
      SVC_API_KEY_FILE: keyFile,
      SVC_BASE_URL: "https://assets.example.com",
    },
    unitDir: join(root, "config", "systemd", "user"),
    stateDir: join(root, "state", "svc-dl"),
    keyFile,
  };
}

/** `svc-dl schedule ...args` in-process in `home`, the key registered as a secret. */
export function schedule(home: ScheduleHome, args: string[]): Promise<InProcessResult> {
  return runCli(["schedule", ...args], {
    env: home.env,
    cwd: home.root,
    secrets: ["svc_live_schedule_test_key_0123456789"],
  });
}

/** The `--json` error line of a failed run. */
export function errorOf(r: InProcessResult): { code: string; hint: string | null } {
  const line = r.stderr.trim().split("\n").at(-1) ?? "{}";
  return (JSON.parse(line) as { error: { code: string; hint: string | null } }).error;
}

/**
 * `systemd-analyze verify` of unit files as the user manager loads them (a runtime directory of
 * its own): its exit code and everything it printed (a warning such as an unknown escape is
 * printed with exit 0, so a clean verify prints nothing).
 */
export function verifyUnits(paths: string[]): { status: number | null; output: string } {
  const runtime = mkdtempSync(join(tmpdir(), "svc-dl-runtime-"));
  mkdirSync(runtime, { recursive: true, mode: 0o700 });
  const r = spawnSync(
    "systemd-analyze",
    ["verify", "--user", "--man=no", "--generators=no", ...paths],
    { encoding: "utf8", env: { ...process.env, XDG_RUNTIME_DIR: runtime } },
  );
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}
