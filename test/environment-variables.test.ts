import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ENVIRONMENT_VARIABLES } from "../src/environment-variables.js";
import { runCli } from "./helpers/cli.js";

// `svc-dl help environment` and the README's table name every environment variable the source
// of svc-dl reads, so that a variable added to the code cannot stay undocumented.

const SRC = fileURLToPath(new URL("../src/", import.meta.url));
const README = readFileSync(new URL("../README.md", import.meta.url), "utf8");

/** Variables svc-dl does not read itself but a library reads for it. */
const READ_BY_LIBRARIES: Record<string, string> = {
  XDG_CONFIG_HOME: "env-paths, for the OS config directory",
};

/** Every .ts file under src/ but the mock service (svc-dl-mock, a program of its own). */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "mock-server" ? [] : sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/**
 * The variables a source text reads: `env.NAME` / `env?.NAME` (process.env or the run's env),
 * and, in a file that reads `env[name]` by a computed name, the variable-like literals it
 * holds (`"HTTPS_PROXY"`, `"https_proxy"`).
 */
function variablesRead(text: string): Set<string> {
  const found = new Set<string>();
  for (const m of text.matchAll(/\benv\??\.([A-Z][A-Z0-9_]*)\b/g)) found.add(m[1] ?? "");
  if (/\benv\[(?!["'`])/.test(text)) {
    for (const m of text.matchAll(
      /["'`]((?:[A-Z][A-Z0-9]*_)+[A-Z0-9]+|(?:https?|no)_proxy)["'`]/g,
    )) {
      found.add(m[1] ?? "");
    }
  }
  return found;
}

/** Variable → the files that read it. */
function readsInSource(): Map<string, string[]> {
  const reads = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    for (const name of variablesRead(readFileSync(file, "utf8"))) {
      reads.set(name, [...(reads.get(name) ?? []), relative(SRC, file)]);
    }
  }
  return reads;
}

/** The variables of the README's "## Environment variables" table (first column). */
function readmeVariables(): Set<string> {
  const lines = README.split("\n");
  const start = lines.indexOf("## Environment variables");
  const end = lines.findIndex((l, i) => i > start && l.startsWith("## "));
  const rows = lines
    .slice(start, end)
    .filter((l) => l.startsWith("|"))
    .slice(2);
  const names = rows.flatMap((row) =>
    [...(row.split("|")[1] ?? "").matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? ""),
  );
  return new Set(names);
}

describe("environment variables", () => {
  const reads = readsInSource();
  const documented = new Set(ENVIRONMENT_VARIABLES.flatMap((v) => v.names));

  it("the scan finds the variables read by name and by a computed name", () => {
    expect(reads.get("SVC_DL_LIMIT_RATE")).toContain("session.ts");
    expect(reads.get("no_proxy")).toContain(join("http", "dispatcher.ts"));
    expect(reads.size).toBeGreaterThan(15);
    expect([...variablesRead('const x = env.NEW_ONE ?? env?.OTHER; f("lower_case")')]).toEqual([
      "NEW_ONE",
      "OTHER",
    ]);
    expect([...variablesRead('for (const n of ["A_B", "no_proxy"]) env[n];')]).toEqual([
      "A_B",
      "no_proxy",
    ]);
  });

  it("`svc-dl help environment` and `svc-dl --help` name every variable the source reads", async () => {
    const r = await runCli(["help", "environment"]);
    expect(r.code).toBe(0);
    const missing = [...reads.keys()].filter((name) => !new RegExp(`\\b${name}\\b`).test(r.stdout));
    expect(missing.map((n) => `${n} (read in ${reads.get(n)?.join(", ")})`)).toEqual([]);
    for (const line of r.stdout.split("\n")) expect(line.length, line).toBeLessThanOrEqual(80);
    const root = await runCli(["--help"]);
    const upper = [...reads.keys()].filter((name) => name === name.toUpperCase());
    expect(upper.filter((name) => !new RegExp(`\\b${name}\\b`).test(root.stdout))).toEqual([]);
  });

  it("lists nothing svc-dl does not read", () => {
    const stale = [...documented].filter((n) => !reads.has(n) && !(n in READ_BY_LIBRARIES));
    expect(stale).toEqual([]);
  });

  it("the README's table has the same variables as `help environment`", () => {
    expect([...readmeVariables()].sort()).toEqual([...documented].sort());
  });
});
