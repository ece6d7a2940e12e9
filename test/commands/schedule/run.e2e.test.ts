import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scheduleName } from "../../../src/schedule/places.js";
import { useMockService } from "../../helpers/mock.js";
import { schedule, scheduleHome } from "./helpers.js";

// The printed crontab line, run as cron runs it (`/bin/sh -c`, a bare environment: no
// SVC_API_KEY, a minimal PATH), syncs DIR from the service with the key from its file.

const shared = useMockService({ packSize: 8 * 1024 });

/** Runs `command` with /bin/sh -c in `env`; resolves with its exit code (the mock keeps serving). */
function runSh(command: string, env: Record<string, string>): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn("/bin/sh", ["-c", command], { env, stdio: "ignore" });
    child.on("error", reject);
    child.on("close", (code) => resolve(code));
  });
}

describe("svc-dl schedule --cron, run as cron runs it", () => {
  it("syncs DIR with the key from the file, writing the report, metrics and log", async () => {
    const { mock } = shared;
    const home = scheduleHome(mock.apiKey);
    home.env.SVC_BASE_URL = mock.baseUrl;
    const dir = join(home.root, "my assets");
    const r = await schedule(home, ["--cron", dir, "--", "--include", "*"]);
    expect(r.code, r.stderr).toBe(0);
    const command = (/^\S+ \S+ \S+ \S+ \S+ (.*)$/.exec(r.stdout.trim())?.[1] ?? "").replace(
      /\\%/g,
      "%",
    );
    const code = await runSh(command, { PATH: "/usr/bin:/bin", HOME: home.root, SHELL: "/bin/sh" });

    const name = scheduleName(dir);
    const log = readFileSync(join(home.stateDir, `${name}.log`), "utf8");
    expect(code, log).toBe(0);
    const report = JSON.parse(readFileSync(join(home.stateDir, `${name}.report.json`), "utf8"));
    expect(report.complete).toBe(true);
    expect(report.dir).toBe(dir);
    expect(report.summary.failed).toBe(0);
    expect(report.summary.downloaded).toBeGreaterThan(0);
    expect(readdirSync(dir).filter((f) => f.endsWith(".zip"))).toHaveLength(
      report.summary.downloaded,
    );
    expect(readFileSync(join(home.stateDir, `${name}.prom`), "utf8")).toMatch(
      /^svc_dl_exit_code\{[^}]*\} 0$/m,
    );
    expect(log).toContain("packs sync started");
    expect(log).not.toContain(mock.apiKey);
  });
});
