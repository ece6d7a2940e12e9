import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, tempConfigDir } from "../../helpers/cli.js";

describe("svc-dl completion", () => {
  it("bash: a valid script (bash -n) covering commands and options", async () => {
    const r = await runCli(["completion", "bash"]);
    expect(r.code).toBe(0);
    const file = join(tempConfigDir(), "svc-dl.bash");
    writeFileSync(file, r.stdout);
    const check = spawnSync("bash", ["-n", file], { encoding: "utf8" });
    expect(check.status, check.stderr).toBe(0);
    for (const word of [
      "auth",
      "login",
      "logout",
      "whoami",
      "config",
      "api",
      "--paginate",
      "--with-key",
      "--max-wait",
      "--base-url",
      "--json",
    ]) {
      expect(r.stdout).toContain(word);
    }
    expect(r.stdout).toContain("complete -o default -F _svc_dl_complete svc-dl");
  });

  it("bash: completes subcommands, options and option values in a real shell", async () => {
    const script = (await runCli(["completion", "bash"])).stdout;
    const probe = (words: string[]) => {
      const line = `${script}
COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}
_svc_dl_complete; printf '%s\\n' "\${COMPREPLY[@]}"`;
      return spawnSync("bash", ["-c", line], { encoding: "utf8" }).stdout.trim().split("\n");
    };
    expect(probe(["svc-dl", "au"])).toEqual(["auth"]);
    expect(probe(["svc-dl", "auth", ""])).toEqual(expect.arrayContaining(["login", "logout"]));
    expect(probe(["svc-dl", "--json", "config", "s"])).toEqual(["set"]);
    expect(probe(["svc-dl", "auth", "login", "--wi"])).toEqual(["--with-key"]);
    expect(probe(["svc-dl", "api", "--pag"])).toEqual(["--paginate"]);
    expect(probe(["svc-dl", "pack", "get", "x", "--edition", ""]).sort()).toEqual([
      "authoring",
      "standard",
    ]);
    expect(probe(["svc-dl", "completion", "z"])).toEqual(["zsh"]);
    expect(probe(["svc-dl", "config", "set", "ba"])).toEqual(["base-url"]);
    expect(probe(["svc-dl", "he"])).toEqual(["help"]);
    expect(probe(["svc-dl", "help", "ex"])).toEqual(["exit-codes"]);
    expect(probe(["svc-dl", "help", "pa"]).sort()).toEqual(["pack", "packs"]);
  });

  it("zsh and fish complete --edition values, shells and config keys", async () => {
    const zsh = (await runCli(["completion", "zsh"])).stdout;
    expect(zsh).toContain("--edition) vals=('standard' 'authoring') ;;");
    expect(zsh).toContain("'base-url'");
    const fish = (await runCli(["completion", "fish"])).stdout;
    expect(fish).toMatch(/-l edition -x -a 'standard authoring'/);
    expect(fish).toContain("-a 'bash zsh fish'");
    expect(fish).toMatch(/__fish_seen_subcommand_from help' -a '[^']*exit-codes environment'/);
    expect(zsh).toContain("'exit-codes' 'environment'");
  });

  it("zsh and fish scripts name every command", async () => {
    for (const shell of ["zsh", "fish"]) {
      const r = await runCli(["completion", shell]);
      expect(r.code).toBe(0);
      for (const word of ["auth", "login", "logout", "config", "api", "completion", "paginate"]) {
        expect(r.stdout, `${shell}: ${word}`).toContain(word);
      }
    }
    const zsh = await runCli(["completion", "zsh"]);
    expect(zsh.stdout.startsWith("#compdef svc-dl")).toBe(true);
    const fish = await runCli(["completion", "fish"]);
    expect(fish.stdout).toContain("complete -c svc-dl");
  });

  it("an unknown shell is a usage error (exit 2)", async () => {
    const r = await runCli(["completion", "powershell"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown_shell");
  });

  it("needs no base URL, key or config", async () => {
    const r = await runCli(["completion", "bash"], {
      env: { SVC_DL_CONFIG_DIR: "/nonexistent/x" },
    });
    expect(r.code).toBe(0);
  });
});
