import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import {
  cronFields,
  EVERY_CHOICES,
  onCalendar,
  parseTiming,
  randomizedDelaySeconds,
} from "../../src/schedule/timing.js";

// `--every` and `--at` (cli-contract "Credentials, schedules and offline runs"): one model that
// cron's fields and systemd's OnCalendar= both express exactly.

describe("schedule timing", () => {
  it("writes the same runs for cron and systemd", () => {
    const cases: [string, string, string, string][] = [
      ["1d", "03:07", "7 3 * * *", "*-*-* 03:07:00"],
      ["1w", "23:59", "59 23 * * 1", "Mon *-*-* 23:59:00"],
      ["6h", "01:30", "30 1,7,13,19 * * *", "*-*-* 01,07,13,19:30:00"],
      ["8h", "17:00", "0 1,9,17 * * *", "*-*-* 01,09,17:00:00"],
      [
        "1h",
        "12:05",
        "5 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23 * * *",
        "*-*-* 00,01,02,03,04,05,06,07,08,09,10,11,12,13,14,15,16,17,18,19,20,21,22,23:05:00",
      ],
      ["15m", "00:50", "5,20,35,50 * * * *", "*-*-* *:05,20,35,50:00"],
      ["1800", "9:10", "10,40 * * * *", "*-*-* *:10,40:00"],
    ];
    for (const [every, at, cron, calendar] of cases) {
      const t = parseTiming(every, at, "/srv/a");
      expect([cronFields(t), onCalendar(t)]).toEqual([cron, calendar]);
    }
  });

  it("every accepted interval gives an OnCalendar= that systemd-analyze calendar accepts", () => {
    for (const every of EVERY_CHOICES.split(", ")) {
      const calendar = onCalendar(parseTiming(every, "02:45", "/srv/a"));
      const r = spawnSync("systemd-analyze", ["calendar", calendar], { encoding: "utf8" });
      expect([every, r.status, r.stderr]).toEqual([every, 0, ""]);
    }
    const bad = spawnSync("systemd-analyze", ["calendar", "*-*-* 25:00:00"], { encoding: "utf8" });
    expect(bad.status).not.toBe(0);
  });

  it("without --at: daily at 03:MM, MM the same for the same DIR and spread across DIRs", () => {
    const a = parseTiming(undefined, undefined, "/srv/a");
    expect(a).toEqual(parseTiming("1d", undefined, "/srv/a"));
    expect([a.every, a.hour]).toEqual(["1d", 3]);
    const minutes = new Set(
      Array.from({ length: 200 }, (_, i) => parseTiming(undefined, undefined, `/srv/${i}`).minute),
    );
    expect(minutes.size).toBeGreaterThan(40);
    expect(Math.max(...minutes)).toBeLessThan(60);
  });

  it("spreads clients by half the interval, 30 minutes at most", () => {
    expect(randomizedDelaySeconds(parseTiming("15m", "00:00", "x"))).toBe(450);
    expect(randomizedDelaySeconds(parseTiming("1h", "00:00", "x"))).toBe(1800);
    expect(randomizedDelaySeconds(parseTiming("1w", "00:00", "x"))).toBe(1800);
  });
});
