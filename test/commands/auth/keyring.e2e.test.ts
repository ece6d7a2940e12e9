import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MockService, startMockService } from "../../../src/mock-server/index.js";
import { assertNoSecrets, cleanEnv, cliArgv, tempConfigDir } from "../../helpers/cli.js";

/**
 * `auth login` against a real Secret Service: gnome-keyring in its own D-Bus session
 * (`dbus-run-session`), as on a Linux desktop. `.ci/run` installs gnome-keyring when missing.
 * Child processes, because the native keyring module reads the real process environment.
 */

let a: MockService;
beforeAll(async () => {
  a = await startMockService({ quiet: true });
});
afterAll(async () => {
  await a.close();
});

interface Step {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs svc-dl (or `cat`, to read a file at that moment) once per `steps` entry inside one D-Bus session with an unlocked gnome-keyring
 * (or, with `dbus` false, with no D-Bus session at all); each step's stdin is its `input`.
 */
async function session(
  steps: { args: string[]; input?: string }[],
  opts: { dbus: boolean; env: Record<string, string> },
): Promise<Step[]> {
  const work = mkdtempSync(join(tmpdir(), "svc-dl-keyring-"));
  const lines = ["set -u"];
  if (opts.dbus) {
    lines.push(
      `eval "$(printf 'test-password\\n' | gnome-keyring-daemon --unlock --components=secrets)" >/dev/null`,
    );
  }
  steps.forEach((s, i) => {
    writeFileSync(join(work, `in${i}`), s.input ?? "");
    const argv = (s.args[0] === "cat" ? s.args : cliArgv(s.args))
      .map((x) => `'${x.replace(/'/g, "'\\''")}'`)
      .join(" ");
    lines.push(
      `${argv} <"${work}/in${i}" >"${work}/out${i}" 2>"${work}/err${i}"; echo $? >"${work}/rc${i}"`,
    );
  });
  const env = cleanEnv({ ...opts.env, HOME: work, XDG_DATA_HOME: join(work, "data") });
  // asynchronously: the mock service answers from this very process
  const child = opts.dbus
    ? spawn("dbus-run-session", ["--", "sh", "-c", lines.join("\n")], { env, stdio: "ignore" })
    : spawn("sh", ["-c", lines.join("\n")], { env, stdio: "ignore" });
  const timer = setTimeout(() => child.kill("SIGKILL"), 100_000);
  const [exitCode] = await Promise.race([
    once(child, "exit"),
    once(child, "error").then(([err]) => {
      throw new Error(
        `dbus-run-session and gnome-keyring-daemon are needed (.ci/run installs them): ${err}`,
      );
    }),
  ]);
  clearTimeout(timer);
  expect(exitCode).toBe(0);
  return steps.map((s, i) => {
    const read = (n: string) =>
      existsSync(join(work, `${n}${i}`)) ? readFileSync(join(work, `${n}${i}`), "utf8") : "";
    const step = { code: Number(read("rc").trim()), stdout: read("out"), stderr: read("err") };
    assertNoSecrets(step.stdout + step.stderr, `svc-dl ${s.args.join(" ")}`);
    return step;
  });
}

describe("the OS keyring (a real Secret Service)", () => {
  // six processes in one D-Bus session: slower than a test's default 30 s on a loaded machine
  it("auth login stores the key in gnome-keyring; later runs read it; logout removes it", {
    timeout: 120_000,
  }, async () => {
    const dir = tempConfigDir();
    const env = { SVC_BASE_URL: a.baseUrl, SVC_DL_CONFIG_DIR: dir };
    const [login, file, status, whoami, logout, after] = await session(
      [
        { args: ["auth", "login", "--with-key"], input: a.apiKey },
        { args: ["cat", join(dir, "config.json")] },
        { args: ["--json", "auth", "status"] },
        { args: ["whoami"] },
        { args: ["--json", "auth", "logout"] },
        { args: ["auth", "status"] },
      ],
      { dbus: true, env },
    );
    expect(login?.code, login?.stderr).toBe(0);
    expect(login?.stderr).toContain("stored in the OS keyring");
    expect(login?.stderr).not.toContain("warning");
    expect(file?.stdout).not.toContain(a.apiKey);
    expect(JSON.parse(file?.stdout ?? "{}")).toMatchObject({
      "key-storage": { [new URL(a.baseUrl).origin]: "keyring" },
    });
    expect(status?.code, status?.stderr).toBe(0);
    expect(JSON.parse(status?.stdout ?? "{}")).toMatchObject({ source: "keyring" });
    expect(whoami?.code).toBe(0);
    expect(whoami?.stdout).toContain("demo@example.com");
    expect(JSON.parse(logout?.stdout ?? "{}")).toMatchObject({ removed: true, from: ["keyring"] });
    expect(after?.code).toBe(3);
    expect(after?.stderr).toContain("no_api_key");
  });

  it("with no D-Bus session (cron, CI): says so and falls back to the 0600 config file", {
    timeout: 90_000,
  }, async () => {
    const dir = tempConfigDir();
    const env = { SVC_BASE_URL: a.baseUrl, SVC_DL_CONFIG_DIR: dir };
    const [login, status] = await session(
      [
        { args: ["auth", "login", "--with-key"], input: a.apiKey },
        { args: ["--json", "auth", "status"] },
      ],
      { dbus: false, env },
    );
    expect(login?.code, login?.stderr).toBe(0);
    expect(login?.stderr).toContain("the OS keyring cannot be used (no D-Bus session");
    expect(readFileSync(join(dir, "config.json"), "utf8")).toContain(a.apiKey);
    expect(JSON.parse(status?.stdout ?? "{}")).toMatchObject({ source: "config" });
  });
});
