import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { SchedulePlan } from "../../src/schedule/plan.js";
import { systemdUnits } from "../../src/schedule/systemd.js";
import { parseTiming } from "../../src/schedule/timing.js";

// The quoting of ExecStart= read back by systemd itself: `systemd-analyze verify` checks that
// the program a unit runs exists, so a node installed under a hostile path is found only when
// its quoting decodes to that exact path.

function plan(node: string): SchedulePlan {
  return {
    name: "svc-dl-sync-a-00000000",
    dir: "/srv/a",
    node,
    script: "/opt/svc dl/lib/svc-dl/main.js",
    keyFile: "/home/u/.config/svc-dl/api 100%-key",
    flags: ["--include", "$HOME%h"],
    timing: parseTiming("1d", "03:00", "/srv/a"),
    version: "0.0.0-test",
  };
}

/** systemd-analyze verify of one service: exit code and all it printed. */
function verify(text: string): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), "svc-dl-units-"));
  const path = join(dir, "svc-dl-sync-a-00000000.service");
  writeFileSync(path, text);
  const r = spawnSync("systemd-analyze", ["verify", "--man=no", "--generators=no", path], {
    encoding: "utf8",
  });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

describe("systemd units", () => {
  it("systemd finds node under a path with spaces, %, $, ; and non-ASCII letters", () => {
    const dir = join(mkdtempSync(join(tmpdir(), "svc-dl-node-")), "my node %n $HOME; é");
    mkdirSync(dir);
    const node = join(dir, "node");
    copyFileSync(process.execPath, node);
    const [service] = systemdUnits(plan(node));
    expect(verify(service.text)).toEqual({ status: 0, output: "" });
    // control: with its % not doubled, %n is the unit's name: another path, which systemd cannot find
    const broken = service.text.replace("node %%n", "node %n");
    expect(broken).not.toBe(service.text);
    expect(verify(broken).status).not.toBe(0);
  });

  it("refuses a node path with a quote or backslash, which systemd refuses to run", () => {
    for (const node of ['/opt/a"b/node', "/opt/a'b/node", "/opt/a\\b/node"]) {
      expect(() => systemdUnits(plan(node))).toThrow(/quote or a backslash/);
    }
  });

  it("doubles % in the credential's path and the description, $ and % in the arguments", () => {
    const [service] = systemdUnits(plan("/usr/bin/node"));
    expect(service.text).toContain(
      "LoadCredential=svc-api-key:/home/u/.config/svc-dl/api 100%%-key\n",
    );
    expect(service.text).toContain('"--include" "$$HOME%%h"\n');
    expect(service.text).toContain('ExecStart="/usr/bin/node" "/opt/svc dl/lib/svc-dl/main.js" ');
  });
});
