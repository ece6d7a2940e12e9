import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { errorOf, schedule, scheduleHome } from "./helpers.js";

// What `svc-dl schedule` refuses before it prints anything (cli-contract "Credentials, schedules
// and offline runs"; exit 2 for the user's mistakes).

describe("svc-dl schedule refuses bad input with exit 2 and says what to give", () => {
  const cases: [string, string[], string, string][] = [
    [
      "an interval no schedule keeps exactly",
      ["--systemd", "--every", "45m"],
      "invalid_schedule",
      '--every: "45m"',
    ],
    ["a zero interval", ["--cron", "--every", "0"], "invalid_schedule", "--every"],
    [
      "a time of day that is none",
      ["--cron", "--at", "24:00"],
      "invalid_schedule",
      '--at: "24:00"',
    ],
    ["a time without minutes", ["--systemd", "--at", "3"], "invalid_schedule", "HH:MM"],
    ["neither --systemd nor --cron", ["/srv/a"], "invalid_schedule", "--systemd or --cron"],
    [
      "DIR left out before --",
      ["--cron", "--", "--edition", "all"],
      "invalid_schedule",
      "looks like a flag",
    ],
    [
      "a flag packs sync does not have",
      ["--cron", "/srv/a", "--", "--bogus"],
      "invalid_schedule",
      "unknown option '--bogus'",
    ],
    [
      "an edition packs sync does not know",
      ["--systemd", "/srv/a", "--", "--edition", "some"],
      "invalid_schedule",
      "'some' is invalid",
    ],
    [
      "a flag without its value",
      ["--cron", "/srv/a", "--", "--edition", "all", "--include"],
      "invalid_schedule",
      "'--include <glob>' argument missing",
    ],
    [
      "a --max-duration that is no duration",
      ["--cron", "/srv/a", "--", "--max-duration", "soon"],
      "invalid_schedule",
      '--max-duration: "soon"',
    ],
    [
      "a --max-delete that is no number",
      ["--systemd", "/srv/a", "--", "--prune", "--max-delete", "-3"],
      "invalid_schedule",
      "--max-delete",
    ],
    ["--help after --", ["--cron", "/srv/a", "--", "--help"], "invalid_schedule", "--help"],
    [
      "a newline in a flag",
      ["--cron", "/srv/a", "--", "--include", "a\nb"],
      "unsafe_schedule_argument",
      "a\\x0ab",
    ],
    ["a tab in DIR", ["--systemd", "/srv/a\tb"], "unsafe_schedule_argument", "DIR holds"],
    [
      "a bidi control in a flag",
      ["--systemd", "/srv/a", "--", "--include", "a\u202eb"],
      "unsafe_schedule_argument",
      "\\u202e",
    ],
    [
      "a key file path ending in a backslash (systemd)",
      ["--systemd", "/srv/a", "--key-file", "/srv/key\\"],
      "unsafe_schedule_argument",
      "ends with a backslash",
    ],
    [
      "a key file path ending in a space (systemd)",
      ["--systemd", "/srv/a", "--key-file", "/srv/key "],
      "unsafe_schedule_argument",
      "ends with a space",
    ],
    [
      "an empty flag",
      ["--cron", "/srv/a", "--", "--include", ""],
      "unsafe_schedule_argument",
      "empty",
    ],
  ];
  for (const [what, args, code, message] of cases) {
    it(what, async () => {
      const r = await schedule(scheduleHome(), ["--json", ...args]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe("");
      const error = errorOf(r) as { code: string; message?: string; hint: string | null };
      expect(error.code).toBe(code);
      expect(error.message).toContain(message);
      expect(error.hint).not.toBeNull();
    });
  }

  it("flags after -- that packs sync refuses: the hint says where they go and how to try them", async () => {
    const home = scheduleHome();
    const r = await schedule(home, ["--json", "--systemd", "/srv/a", "--write", "--", "--bogus"]);
    expect(r.code, r.stderr).toBe(2);
    const error = errorOf(r) as { code: string; message: string; hint: string };
    expect(error.message).toBe(
      "the words after -- would fail every scheduled run: unknown option '--bogus'",
    );
    expect(error.hint).toContain("`svc-dl packs sync --help`");
    expect(existsSync(home.unitDir)).toBe(false);
  });

  it("--systemd and --cron together", async () => {
    const r = await schedule(scheduleHome(), ["--systemd", "--cron"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("cannot be used with");
    expect(r.stdout).toBe("");
  });

  it("--help shows both ways, the defaults and examples", async () => {
    const r = await schedule(scheduleHome(), ["--help"]);
    expect(r.code).toBe(0);
    for (const text of [
      "Usage: svc-dl schedule (--systemd | --cron) [DIR] [--every DURATION] [--at HH:MM] [--write] [-- SYNC-FLAGS...]",
      "--systemd",
      "--cron",
      "--every <duration>",
      "--at <time>",
      "--write",
      "--key-file <path>",
      "Defaults: --every 1d",
      "$ svc-dl schedule --systemd ~/assets --write",
      "| crontab -",
    ]) {
      expect(r.stdout).toContain(text);
    }
  });
});
