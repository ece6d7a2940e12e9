import { renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scheduleName } from "../../../src/schedule/places.js";
import { errorOf, schedule, scheduleHome } from "./helpers.js";

// "Every hint a step that works" (test/errors/hint-walk.e2e.test.ts) for the codes of `svc-dl
// schedule`: the step each hint names is taken, and the same command then succeeds.

describe("the hints of svc-dl schedule lead to a schedule", () => {
  it("invalid_schedule: --every as one of the intervals the message names", async () => {
    const home = scheduleHome();
    const bad = await schedule(home, ["--json", "--systemd", "/srv/a", "--every", "45m"]);
    expect(errorOf(bad).code).toBe("invalid_schedule");
    expect(errorOf(bad).hint).toContain("--every as one of the intervals named");
    const named = /one of ([^)]*)\)/.exec(bad.stderr)?.[1]?.split(", ") ?? [];
    expect(named).toContain("30m");
    const ok = await schedule(home, ["--systemd", "/srv/a", "--every", "30m"]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain("OnCalendar=*-*-* *:");
  });

  it("unsafe_schedule_argument: the value without its control character", async () => {
    const home = scheduleHome();
    const bad = await schedule(home, ["--json", "--cron", "/srv/a", "--", "--include", "a\tb"]);
    expect(errorOf(bad).code).toBe("unsafe_schedule_argument");
    expect(errorOf(bad).hint).toContain("give that value without it");
    const ok = await schedule(home, ["--cron", "/srv/a", "--", "--include", "a b"]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain("'--include' 'a b'");
  });

  it("foreign_schedule_file: the foreign unit moved away, the same --write succeeds", async () => {
    const home = scheduleHome();
    const args = ["--json", "--systemd", "/srv/a", "--write"];
    expect((await schedule(home, args)).code).toBe(0);
    const service = join(home.unitDir, `${scheduleName("/srv/a")}.service`);
    writeFileSync(service, "[Service]\nExecStart=/bin/true\n");
    const bad = await schedule(home, args);
    expect(errorOf(bad).code).toBe("foreign_schedule_file");
    expect(errorOf(bad).hint).toContain(`move ${service} away`);
    renameSync(service, `${service}.mine`);
    const ok = await schedule(home, args);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout).files[0].action).toBe("created");
  });
});
