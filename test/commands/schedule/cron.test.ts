import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { programPaths } from "../../../src/context.js";
import { ScheduleDocumentSchema } from "../../../src/documents.js";
import { scheduleName } from "../../../src/schedule/places.js";
import { runCli } from "../../helpers/cli.js";
import { errorOf, HOSTILE_FLAGS, schedule, scheduleHome } from "./helpers.js";

// `svc-dl schedule --cron` (cli-contract "Credentials, schedules and offline runs"): one crontab
// line; its command, split by sh as cron would run it, gives svc-dl exactly the words asked for.

const DIR = "/srv/it's 100% mine";

/** The five time fields and the command of a crontab line, the command as cron hands it to sh. */
function splitCronLine(line: string): { fields: string; command: string } {
  const m = /^(\S+ \S+ \S+ \S+ \S+) (.*)$/.exec(line);
  const command = m?.[2] ?? "";
  // cron ends the command at an unescaped % (the rest becomes stdin): there must be none
  expect(command.replace(/\\%/g, "")).not.toContain("%");
  return { fields: m?.[1] ?? "", command: command.replace(/\\%/g, "%") };
}

describe("svc-dl schedule --cron", () => {
  it("prints one line whose command sh splits into exactly the argv asked for", async () => {
    const home = scheduleHome();
    const r = await schedule(home, ["--cron", DIR, "--at", "04:05", "--", ...HOSTILE_FLAGS]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.endsWith("\n")).toBe(true);
    const line = r.stdout.slice(0, -1);
    expect(line).not.toContain("\n");
    expect(line).not.toContain("svc_live_");
    const { fields, command } = splitCronLine(line);
    expect(fields).toBe("5 4 * * *");

    // node's place taken by a script that prints its argv (and the key file it is given)
    const { node, script } = programPaths();
    const printer = join(home.root, "print-argv");
    writeFileSync(printer, '#!/bin/sh\nprintf \'%s\\0\' "$SVC_API_KEY_FILE" "$@"\n');
    chmodSync(printer, 0o755);
    expect(command.split(`'${node}'`)).toHaveLength(2);
    const sh = spawnSync("/bin/sh", ["-c", command.replace(`'${node}'`, `'${printer}'`)], {
      encoding: "utf8",
      env: { PATH: "/usr/bin:/bin", HOME: home.root, SHELL: "/bin/sh" },
    });
    expect(sh.status, sh.stderr).toBe(0);

    const name = scheduleName(DIR);
    const log = join(home.stateDir, `${name}.log`);
    expect(readFileSync(log, "utf8").split("\0").slice(0, -1)).toEqual([
      home.keyFile,
      script,
      "packs",
      "sync",
      DIR,
      "--base-url",
      "https://assets.example.com",
      ...HOSTILE_FLAGS,
      "--report",
      join(home.stateDir, `${name}.report.json`),
      "--metrics",
      join(home.stateDir, `${name}.prom`),
    ]);
    expect(statSync(home.stateDir).mode & 0o777).toBe(0o700);
    expect(r.stderr).toContain(`appends its output to ${log}`);
  });

  it("keeps the user's own --report and --metrics, and the base URL of the config file", async () => {
    const home = scheduleHome();
    const { SVC_BASE_URL: _, ...rest } = home.env;
    const env = { ...rest, SVC_DL_CONFIG_DIR: mkdtempSync(join(home.root, "svc-dl-config-")) };
    const unset = await runCli(["schedule", "--cron", "/srv/a"], { env });
    expect(unset.code, unset.stderr).toBe(0);
    expect(unset.stderr).toContain("note: no service address is set");
    const config = await runCli(["config", "set", "base-url", "https://assets.example.com"], {
      env,
    });
    expect(config.code, config.stderr).toBe(0);
    const r = await runCli(
      ["schedule", "--cron", "/srv/a", "--", "--report=/srv/r.json", "--metrics", "/srv/m.prom"],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("'--report=/srv/r.json' '--metrics' '/srv/m.prom' >> ");
    expect(r.stdout).not.toContain("'--report' ");
    expect(r.stdout).not.toContain("--base-url");
    expect(r.stderr).not.toContain("no service address");
  });

  it("--write is refused for cron (exit 2), with the way to add the line", async () => {
    const home = scheduleHome();
    const r = await schedule(home, ["--json", "--cron", DIR, "--write"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    const error = errorOf(r);
    expect(error.code).toBe("invalid_schedule");
    expect(error.hint).toContain("(crontab -l; svc-dl schedule --cron DIR) | crontab -");
  });

  it("--json: the line and its log file", async () => {
    const home = scheduleHome();
    const r = await schedule(home, [
      "--json",
      "--cron",
      "/srv/a",
      "--every",
      "30m",
      "--at",
      "00:10",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const doc = ScheduleDocumentSchema.parse(JSON.parse(r.stdout));
    if (doc.kind !== "cron") throw new Error(`a ${doc.kind} document`);
    expect(doc.line.startsWith("10,40 * * * * ")).toBe(true);
    expect(doc.log).toBe(join(home.stateDir, `${doc.name}.log`));
  });
});
