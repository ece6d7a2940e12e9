import { chmodSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { programPaths } from "../../../src/context.js";
import { ScheduleDocumentSchema } from "../../../src/documents.js";
import { scheduleName } from "../../../src/schedule/places.js";
import { errorOf, HOSTILE_FLAGS, schedule, scheduleHome, verifyUnits } from "./helpers.js";

// `svc-dl schedule --systemd` (cli-contract "Credentials, schedules and offline runs"): the user
// service and timer it prints or writes, checked by systemd's own verifier.

const DIR = "/srv/my assets";
const NAME = /svc-dl-sync-my_assets-[0-9a-f]{8}/;

describe("svc-dl schedule --systemd", () => {
  it("prints a service and a timer: absolute paths, the key by LoadCredential, exit 10 a success", async () => {
    const home = scheduleHome();
    const r = await schedule(home, ["--systemd", DIR, "--at", "04:05"]);
    expect(r.code, r.stderr).toBe(0);
    const { node, script } = programPaths();
    const name = NAME.exec(r.stdout)?.[0] ?? "";
    expect(r.stdout).toContain(`# ${join(home.unitDir, `${name}.service`)}\n`);
    expect(r.stdout).toContain(
      `ExecStart="${node}" "${script}" "packs" "sync" "${DIR}" "--base-url" "https://assets.example.com"\n`,
    );
    expect(r.stdout).toContain(`LoadCredential=svc-api-key:${home.keyFile}\n`);
    expect(r.stdout).toContain("SuccessExitStatus=10\n");
    expect(r.stdout).toContain("OnCalendar=*-*-* 04:05:00\n");
    expect(r.stdout).toContain("Persistent=true\n");
    expect(r.stdout).toContain("RandomizedDelaySec=1800\n");
    expect(r.stdout).toContain("WantedBy=timers.target\n");
    expect(r.stdout).not.toContain("svc_live_");
    expect(r.stderr).toContain(`systemctl --user enable --now ${name}.timer`);
  });

  it("--write: files systemd-analyze verify accepts without a word, hostile flags included", async () => {
    const home = scheduleHome();
    const r = await schedule(home, ["--systemd", DIR, "--write", "--", ...HOSTILE_FLAGS]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("");
    const name = NAME.exec(r.stderr)?.[0] ?? "";
    const paths = [".service", ".timer"].map((ext) => join(home.unitDir, `${name}${ext}`));
    expect(r.stderr).toContain(`created ${paths[0]}`);
    expect(r.stderr).toContain(`created ${paths[1]}`);
    expect(verifyUnits(paths)).toEqual({ status: 0, output: "" });
    const service = readFileSync(paths[0] ?? "", "utf8");
    expect(service).toContain('"two words" "--include" "it\'s" "--include" "\\"quoted\\""');
    expect(service).toContain('"%%h%%n%%%%"');
    expect(service).toContain('"$$HOME$${USER}$$$$"');
    expect(service).toContain('"back\\\\slash\\\\"');
  });

  it("a DIR with quotes, %, $ and a final backslash: verified, and no line continued", async () => {
    const home = scheduleHome();
    const dir = `/srv/it's 100% "mine" $x \\`;
    const r = await schedule(home, ["--systemd", dir, "--write"]);
    expect(r.code, r.stderr).toBe(0);
    const paths = [".service", ".timer"].map((ext) =>
      join(home.unitDir, `${scheduleName(dir)}${ext}`),
    );
    expect(verifyUnits(paths)).toEqual({ status: 0, output: "" });
    for (const path of paths) {
      const lines = readFileSync(path, "utf8").split("\n");
      expect(lines.filter((line) => line.endsWith("\\"))).toEqual([]);
    }
  });

  it("the verifier is a real check: a unit it cannot use fails it (control)", async () => {
    const home = scheduleHome();
    await schedule(home, ["--systemd", DIR, "--write"]);
    const service = join(home.unitDir, `${scheduleName(DIR)}.service`);
    const text = readFileSync(service, "utf8");
    writeFileSync(service, text.replace(/^ExecStart="[^"]*"/m, 'ExecStart="/nonexistent/node"'));
    expect(verifyUnits([service]).status).not.toBe(0);
  });

  it("--write rewrites its own files and refuses one it did not write, writing nothing", async () => {
    const home = scheduleHome();
    expect((await schedule(home, ["--systemd", DIR, "--write"])).code).toBe(0);
    const base = join(home.unitDir, scheduleName(DIR));
    const again = await schedule(home, ["--systemd", DIR, "--write"]);
    expect(again.stderr).toContain(`unchanged ${base}.service`);
    const changed = await schedule(home, ["--systemd", DIR, "--write", "--every", "6h"]);
    expect(changed.code).toBe(0);
    expect(changed.stderr).toContain(`rewritten ${base}.timer`);
    expect(readFileSync(`${base}.timer`, "utf8")).toContain("OnCalendar=*-*-* ");

    const mine = "[Service]\nExecStart=/bin/true\n";
    writeFileSync(`${base}.service`, mine);
    const timerBefore = readFileSync(`${base}.timer`, "utf8");
    const refused = await schedule(home, ["--json", "--systemd", DIR, "--write", "--every", "1d"]);
    expect(refused.code).toBe(8);
    const error = errorOf(refused);
    expect(error.code).toBe("foreign_schedule_file");
    expect(error.hint).toContain(`move ${base}.service away`);
    expect(readFileSync(`${base}.service`, "utf8")).toBe(mine);
    expect(readFileSync(`${base}.timer`, "utf8")).toBe(timerBefore);
  });

  it("--write never writes through a symlink at a unit's path", async () => {
    const home = scheduleHome();
    const target = join(home.root, "target");
    writeFileSync(target, "theirs\n");
    await schedule(home, ["--systemd", DIR, "--write"]);
    const service = join(home.unitDir, `${scheduleName(DIR)}.service`);
    rmSync(service);
    symlinkSync(target, service);
    const r = await schedule(home, ["--json", "--systemd", DIR, "--write"]);
    expect(r.code).toBe(8);
    expect(errorOf(r).code).toBe("unsafe_output_path");
    expect(readFileSync(target, "utf8")).toBe("theirs\n");
  });

  it("refuses a key file others can read (exit 8) and never prints the key", async () => {
    const home = scheduleHome();
    chmodSync(home.keyFile, 0o644);
    const r = await schedule(home, ["--json", "--systemd", DIR]);
    expect(r.code).toBe(8);
    expect(errorOf(r).code).toBe("unsafe_key_file");
    expect(statSync(home.keyFile).mode & 0o777).toBe(0o644);
  });

  it("--json: one document with the files, what was done to them, and the next commands", async () => {
    const home = scheduleHome();
    const r = await schedule(home, ["--json", "--systemd", DIR, "--write"]);
    expect(r.code, r.stderr).toBe(0);
    const doc = ScheduleDocumentSchema.parse(JSON.parse(r.stdout));
    if (doc.kind !== "systemd") throw new Error(`a ${doc.kind} document`);
    expect(doc.files.map((f) => [f.path, f.action])).toEqual([
      [join(home.unitDir, `${doc.name}.service`), "created"],
      [join(home.unitDir, `${doc.name}.timer`), "created"],
    ]);
    expect(doc.files[0]?.text).toBe(readFileSync(doc.files[0]?.path ?? "", "utf8"));
    expect(doc.next).toContain(`systemctl --user enable --now ${doc.name}.timer`);
  });
});
