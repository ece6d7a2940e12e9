import { readdirSync, readFileSync } from "node:fs";
import { join, sep } from "node:path";
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { commandAt, hintContext } from "../../src/cli.js";
import type { ArchiveProblemKind } from "../../src/errors/archive-hints.js";
import { CODES, renderHint } from "../../src/errors/codes.js";
import { hintFor } from "../../src/errors/format.js";
import type { SvcError } from "../../src/errors/svc-error.js";
import { unsafeArchive } from "../../src/extract/errors.js";
import { fileExists } from "../../src/outdir/errors.js";
import { pickFileName } from "../../src/outdir/ownership.js";
import type { StateItem } from "../../src/outdir/state.js";
import { allCommands, programTree } from "../helpers/program-tree.js";

/**
 * Walks every code × every command of the program (derived from src/program.ts, so commands
 * added later are walked too) and checks that each command and flag a hint names exists.
 */

const program = programTree();

/** Every `.ts` file below `dir`. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => join(e.parentPath, e.name));
}

function pathOf(cmd: Command): string {
  const words: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) words.unshift(c.name());
  return words.join(" ");
}

function flagsOf(cmd: Command): Set<string> {
  const flags = new Set(["--help", "-h"]);
  for (let c: Command | null = cmd; c; c = c.parent) {
    for (const o of c.options) {
      if (o.long) flags.add(o.long);
      if (o.short) flags.add(o.short);
    }
  }
  return flags;
}

/** Every problem with what `hint` names, for the command `at`. */
function problems(hint: string, at: Command): string[] {
  const out: string[] = [];
  const quoted = [...hint.matchAll(/`([^`]*)`/g)].map((m) => m[1] ?? "");
  for (const snippet of quoted) {
    const words = snippet.split(/\s+/);
    if (words[0] !== "svc-dl") continue;
    const rest = words.slice(1).filter((w) => !/^[<>|]/.test(w));
    const words0 = rest.filter((w) => !w.startsWith("-"));
    const target = commandAt(program, words0);
    const depth = pathOf(target).split(" ").filter(Boolean).length;
    const next = words0[depth];
    // a word after a command that has subcommands must be one of them
    if (target.commands.length > 0 && next !== undefined) {
      out.push(`\`${snippet}\`: ${pathOf(target) || "svc-dl"} has no command ${next}`);
    }
    const flags = flagsOf(target);
    for (const w of rest) {
      if (w.startsWith("-") && w !== "-" && !flags.has(w)) {
        out.push(`\`${snippet}\`: ${pathOf(target)} has no ${w}`);
      }
    }
  }
  const outside = hint.replace(/`[^`]*`/g, " ");
  const flags = flagsOf(at);
  for (const m of outside.matchAll(/(?:^|[\s(,])(--?[a-zA-Z][\w-]*)/g)) {
    const flag = m[1] ?? "";
    if (!flags.has(flag)) out.push(`${pathOf(at) || "svc-dl"} has no ${flag}`);
  }
  return out;
}

describe("hints name only commands and flags that exist", () => {
  const commands = [program, ...allCommands(program)];

  it("walks a tree with the contract's commands", () => {
    const paths = commands.map(pathOf);
    for (const p of [
      "auth login",
      "auth status",
      "whoami",
      "packs list",
      "pack get",
      "asset get",
      "assets list",
      "packs sync",
      "verify",
      "install",
      "cache dir",
      "cache clean",
    ]) {
      expect(paths).toContain(p);
    }
    const globals = flagsOf(program);
    for (const flag of ["--proxy", "--ca-file", "--wait-lock", "--base-url", "--max-wait"]) {
      expect(globals.has(flag), flag).toBe(true);
    }
  });

  it("has a row for every code thrown in src/ (so its hint is walked here)", () => {
    const thrown = new Set<string>();
    for (const file of sourceFiles(join(process.cwd(), "src"))) {
      if (file.includes(`${sep}mock-server${sep}`)) continue;
      const text = readFileSync(file, "utf8");
      for (const m of text.matchAll(
        /\bcode:\s*(?:[^,\n]*\?\s*)?"([a-z]+(?:_[a-z]+)*)"(?:\s*:\s*"([a-z_]+)")?/g,
      )) {
        for (const code of [m[1], m[2]]) if (code) thrown.add(code);
      }
    }
    expect(thrown.size).toBeGreaterThan(20);
    expect([...thrown].filter((code) => !Object.hasOwn(CODES, code))).toEqual([]);
  });

  for (const code of Object.keys(CODES)) {
    it(code, () => {
      const found: string[] = [];
      for (const at of commands) {
        const hint = renderHint(code, hintContext(program, at));
        if (hint !== null) found.push(...problems(hint, at).map((p) => `${pathOf(at)}: ${p}`));
      }
      expect(found).toEqual([]);
    });
  }

  it("hints fixed at throw sites name commands that exist and flags some command has", () => {
    const every = new Set<string>();
    for (const at of commands) for (const flag of flagsOf(at)) every.add(flag);
    const found: string[] = [];
    let hints = 0;
    for (const file of sourceFiles(join(process.cwd(), "src"))) {
      if (file.includes(`${sep}mock-server${sep}`)) continue;
      const text = readFileSync(file, "utf8");
      for (const m of text.matchAll(/\bhint:\s*(?:"((?:\\.|[^"\\])*)"|'((?:\\.|[^'\\])*)')/g)) {
        const hint = m[1] ?? m[2] ?? "";
        hints += 1;
        for (const p of problems(hint, program)) {
          const flag = /^svc-dl has no (\S+)$/.exec(p)?.[1];
          if (flag === undefined || !every.has(flag)) found.push(`${file}: ${p}`);
        }
      }
    }
    // the scan still sees the throw sites' fixed hints (fewer as they move into the table)
    expect(hints).toBeGreaterThan(8);
    expect(found).toEqual([]);
  });

  it("catches a hint that names a flag the command lacks (self-test)", () => {
    const assetGet = commandAt(program, ["asset", "get"]);
    expect(problems("try without --edition", assetGet)).toEqual(["asset get has no --edition"]);
    expect(problems("see `svc-dl packs lst`", program)).not.toEqual([]);
  });

  it("renders the issue's cases for the command at hand", () => {
    const at = (words: string[]) => hintContext(program, commandAt(program, words));
    expect(renderHint("file_unavailable", at(["asset", "get"]))).not.toContain("--edition");
    // a hint tests what was passed, not what the command accepts
    expect(renderHint("file_unavailable", at(["pack", "get"]))).not.toContain("--edition");
    const withEdition = { ...at(["pack", "get"]), given: (f: string) => f === "--edition" };
    expect(renderHint("file_unavailable", withEdition)).toContain("try without --edition");
    expect(renderHint("not_found", at(["asset", "get"]))).not.toContain("packs list");
    expect(renderHint("not_found", at(["api"]))).not.toContain("slug");
    expect(renderHint("permission_denied", at(["packs", "sync"]))).not.toContain("-o");
    expect(renderHint("file_exists", at(["packs", "sync"]))).not.toContain("-o");
    expect(renderHint("file_exists", at(["pack", "get"]))).toContain("--force");
  });
});

describe("throw-site hints fit the command that throws them", () => {
  const at = (words: string[]) => hintContext(program, commandAt(program, words));

  it("file_exists: --force and -o only where the command has them", () => {
    const err = fileExists(
      "/d/low-poly-forest.zip",
      "exists with other bytes than the service serves",
    );
    for (const words of [["packs", "sync"], ["install"], ["verify"]]) {
      const hint = hintFor(err, at(words)) ?? "";
      expect([words.join(" "), problems(hint, commandAt(program, words))]).toEqual([
        words.join(" "),
        [],
      ]);
      expect(hint).toContain("Move the file away");
    }
    const get = hintFor(err, at(["pack", "get"]));
    expect(get).toContain("--force");
    expect(get).toContain("-o");
  });

  it("--extract: every refusal's hint names only flags of the commands that extract", () => {
    const kinds: ArchiveProblemKind[] = [
      "outside",
      "not valid on Windows",
      "too deep",
      "name too long",
      "path too long",
      "link",
      "encrypted",
      "compression",
      "collision",
      "too large",
      "no space",
      "corrupt",
    ];
    const found: string[] = [];
    for (const kind of kinds) {
      const err = unsafeArchive("/d/p.zip", { kind, reason: "r" });
      for (const words of [["pack", "get"], ["packs", "sync"], ["install"]]) {
        const hint = hintFor(err, at(words)) ?? "";
        for (const p of problems(hint, commandAt(program, words))) found.push(`${kind}: ${p}`);
      }
    }
    expect(found).toEqual([]);
  });

  it("a name held by two other items: the hint names the item's own get command", () => {
    const held = (kind: "pack" | "asset", slug: string, file: string): StateItem => ({
      kind,
      slug,
      edition: null,
      file,
      size: 1,
      etag: null,
      sha256: "0".repeat(64),
      completed_at: "2026-01-01T00:00:00.000Z",
    });
    const state = {
      version: 1 as const,
      items: {
        "a.glb": held("asset", "other", "a.glb"),
        "cube.glb": held("asset", "x", "cube.glb"),
      },
    };
    let hint = "";
    try {
      pickFileName({
        state,
        item: { kind: "asset", slug: "cube", edition: null },
        server: "a.glb",
        force: false,
        dir: "/d",
      });
    } catch (err) {
      hint = hintFor(err as SvcError, at(["packs", "sync"])) ?? "";
    }
    expect(hint).toContain("`svc-dl asset get cube -o /d/NAME`");
    expect(problems(hint, program)).toEqual([]);
  });
});
