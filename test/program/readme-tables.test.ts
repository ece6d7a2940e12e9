import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { SETTABLE_KEYS } from "../../src/config/settable-keys.js";
import { ENVIRONMENT_VARIABLES } from "../../src/environment-variables.js";
import { runCli } from "../helpers/cli.js";
import { allCommands, programTree } from "../helpers/program-tree.js";

// The README's tables (commands, global options, config keys) checked against the commander
// tree and the settable-keys table, so that neither can change without the other.

const README = readFileSync(new URL("../../README.md", import.meta.url), "utf8");

/** The lines of the README section under `heading` (up to the next heading of any level). */
function section(heading: string): string[] {
  const lines = README.split("\n");
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`README has no heading ${heading}`);
  const end = lines.findIndex((l, i) => i > start && /^#{1,6} /.test(l));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/** The first cell of every body row of the first Markdown table in `lines`. */
function firstCells(lines: string[]): string[] {
  const rows = lines.filter((l) => l.startsWith("|"));
  // rows[0] is the header, rows[1] the --- line
  return rows.slice(2).map((row) => (row.split(/(?<!\\)\|/)[1] ?? "").trim());
}

/** The `code spans` of a text. */
function codeSpans(text: string): string[] {
  return [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? "");
}

/** `pack get` for a command of the tree. */
function pathOf(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(" ");
}

/**
 * The commands a first cell names, walking the tree: `svc-dl cache dir\|ls` names `cache dir`
 * and `cache ls`; words after a command without subcommands are its arguments. Throws when a
 * word names no command where the tree has subcommands.
 */
function namedCommands(cell: string, root: Command): string[] {
  const named: string[] = [];
  for (const span of codeSpans(cell)) {
    const words = span.split(/\s+/).filter((w) => w !== "svc-dl");
    let at = root;
    for (const word of words) {
      if (at.commands.length === 0) break;
      const alternatives = word.split(/\\?\|/).filter((w) => w !== "");
      const subs = alternatives.map((name) => at.commands.find((c) => c.name() === name));
      const missing = alternatives.filter((_, i) => subs[i] === undefined);
      if (missing.length > 0) {
        throw new Error(`"${span}": no command ${missing.join(", ")} under "${pathOf(at)}"`);
      }
      named.push(...subs.map((c) => pathOf(c as Command)));
      if (subs.length !== 1) break;
      at = subs[0] as Command;
    }
  }
  return named;
}

describe("README ## Commands", () => {
  const root = programTree();
  const cells = firstCells(section("## Commands"));

  it("has a row for every command and subcommand, and none for a command that does not exist", () => {
    const named = new Set(cells.flatMap((cell) => namedCommands(cell, root)));
    const missing = allCommands(root)
      .filter((c) => !named.has(pathOf(c)))
      .map(pathOf);
    expect(missing).toEqual([]);
    expect(cells.length).toBeGreaterThan(10);
  });

  it("a row naming a command the tree lacks fails the check", () => {
    expect(() => namedCommands("`svc-dl packs prune`", root)).toThrow(/no command prune/);
    expect(() => namedCommands("`svc-dl doctr`", root)).toThrow(/no command doctr/);
    expect(namedCommands("`svc-dl cache dir\\|ls`", root)).toEqual([
      "cache",
      "cache dir",
      "cache ls",
    ]);
  });

  it("lists every global option the program takes, and no other", () => {
    const text = section("## Commands")
      .join("\n")
      .split(/\n\n/)
      .find((p) => p.startsWith("Global options"));
    expect(text).toBeDefined();
    // the options follow the colon; the first line says where they are listed
    const list = (text ?? "").split(":\n")[1]?.split("\n`svc-dl help")[0] ?? "";
    const readme = codeSpans(list)
      .flatMap((span) => (span.split(/\s/)[0] ?? "").split("/"))
      .filter((flag) => flag.startsWith("--"))
      .sort();
    const tree = [...new Set([...root.options.map((o) => o.long ?? ""), "--help"])].sort();
    expect(readme).toEqual(tree);
  });
});

describe("README config keys", () => {
  const lines = section("### Configuration: `svc-dl config`");
  const rows = lines.filter((l) => l.startsWith("|")).slice(2);
  const cells = (row: string) => row.split("|").map((c) => c.trim());

  it("the table's keys are exactly the keys `config set` accepts", () => {
    const keys = rows.map((row) => codeSpans(cells(row)[1] ?? "")[0]);
    expect(keys).toEqual([...SETTABLE_KEYS]);
  });

  it("names flags and variables that exist", () => {
    const flags = new Set(programTree().options.map((o) => o.long));
    const variables = new Set(ENVIRONMENT_VARIABLES.flatMap((v) => v.names));
    for (const row of rows) {
      const [, , , flag = "", env = ""] = cells(row);
      for (const f of codeSpans(flag)) expect(flags.has(f), f).toBe(true);
      for (const v of codeSpans(env)) expect(variables.has(v), v).toBe(true);
    }
  });

  it("no other place of the README lists the keys short of one", () => {
    for (const line of README.split("\n")) {
      if (line.includes("`base-url`") && line.includes("`ca-file`")) {
        expect(line, line).toContain("`limit-rate`");
      }
    }
  });

  it("`config`, `config get|set|unset --help` name every key", async () => {
    for (const args of [["config"], ["config", "get"], ["config", "set"], ["config", "unset"]]) {
      const r = await runCli([...args, "--help"]);
      for (const key of SETTABLE_KEYS) expect(r.stdout, `${args.join(" ")}: ${key}`).toContain(key);
    }
  });
});
