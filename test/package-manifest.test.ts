import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * Honest installation: what the README and docs tell users to run must work before svc-dl is
 * on the npm registry, and must never fetch a package by its bare name (whoever registers the
 * name would receive the SVC_API_KEY the recipes export). The routes themselves are installed
 * by `npm run test:package`.
 */

const root = fileURLToPath(new URL("..", import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  engines: { node: string };
  files: string[];
  repository?: { url?: string };
  homepage?: string;
  bugs?: { url?: string };
};
const readme = readFileSync(join(root, "README.md"), "utf8");
const docs = readdirSync(join(root, "docs"))
  .filter((f) => f.endsWith(".md"))
  .map((f) => ({ name: `docs/${f}`, text: readFileSync(join(root, "docs", f), "utf8") }));

/** The lines of every fenced code block in `text`. */
function codeLines(text: string): string[] {
  return [...text.matchAll(/```[^\n]*\n([\s\S]*?)```/g)].flatMap((m) => (m[1] ?? "").split("\n"));
}

/** A command line that resolves svc-dl by its bare registry name. */
const BARE_NAME = [
  /\bnpx\s+(?:--yes\s+|-y\s+|--package[= ])?svc-dl\b/,
  /\bnpm\s+(?:install|i|add)\s+(?:-g\s+|--global\s+)?svc-dl(?:@\S*)?(?:\s|$)/,
  /\bnpm\s+exec\s+(?:--yes\s+|-y\s+)?(?:--\s+)?svc-dl\b/,
];

describe("honest installation", () => {
  it("no recipe in the README or docs/ resolves the bare registry name `svc-dl`", () => {
    for (const { name, text } of [{ name: "README.md", text: readme }, ...docs]) {
      for (const line of codeLines(text)) {
        for (const re of BARE_NAME) expect(re.test(line), `${name}: ${line}`).toBe(false);
      }
    }
  });

  it("the README's Node version is the one package.json requires", () => {
    const required = /^>=(\d+\.\d+\.\d+)$/.exec(pkg.engines.node)?.[1];
    expect(required).toBeDefined();
    expect(readme).toContain(`Requires Node.js ${required} or newer.`);
  });

  it("package.json names no repository, home page or issue tracker (svc-dl holds none)", () => {
    expect(pkg.repository).toBeUndefined();
    expect(pkg.homepage).toBeUndefined();
    expect(pkg.bugs).toBeUndefined();
  });

  it("no user-facing file names an address the project does not hold", () => {
    const files = [
      { name: "README.md", text: readme },
      { name: "package.json", text: JSON.stringify(pkg) },
      { name: "action.yml", text: readFileSync(join(root, "action.yml"), "utf8") },
      ...docs,
    ];
    for (const { name, text } of files) {
      expect(text, name).not.toMatch(/svc-dl\/svc-dl|github\.com\/svc-dl/);
    }
  });

  it("every `uses:` of a workflow example pins by commit SHA or is a placeholder to fill", () => {
    for (const { name, text } of [{ name: "README.md", text: readme }, ...docs]) {
      for (const line of codeLines(text).filter((l) => /^\s*-?\s*uses:/.test(l))) {
        expect(line, `${name}: ${line}`).toMatch(/@(?:[0-9a-f]{40}|<40-hex commit SHA>)(?:\s|$)/);
      }
    }
  });

  it("CHANGELOG.md: Keep a Changelog sections, [Unreleased] first, the newest release is package.json's version", () => {
    const changelog = readFileSync(join(root, "CHANGELOG.md"), "utf8");
    const versions = [...changelog.matchAll(/^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$/gm)];
    expect(versions[0]?.[1]).toBe("Unreleased");
    expect(versions[1]?.[1]).toBe((pkg as { version?: string }).version);
    for (const v of versions.slice(1)) expect(v[2], v[1]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    for (const m of changelog.matchAll(/^### (.+)$/gm)) {
      expect(["Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"]).toContain(m[1]);
    }
  });

  it("every relative link of the README names a file the package ships", () => {
    const links = [...readme.matchAll(/\]\(((?!https?:|#)[^)#]+)(?:#[^)]*)?\)/g)].map(
      (m) => m[1] ?? "",
    );
    expect(links.length).toBeGreaterThan(0);
    for (const link of links) {
      expect(existsSync(join(root, link)), link).toBe(true);
      const top = link.split("/")[0] ?? "";
      // npm packs README and LICENSE whatever `files` says; CHANGELOG only when `files` names it
      const shippedAlways = /^(README|LICENSE|LICENCE)/i.test(top);
      const shipped = shippedAlways || pkg.files.includes(top) || pkg.files.includes(link);
      expect(shipped, `${link} is not in package.json files`).toBe(true);
    }
  });
});

describe("the program's external packages", () => {
  it("every package the program bundle leaves external is a run-time dependency", async () => {
    const { PROGRAM_EXTERNALS } = (await import(join(root, "scripts", "program-externals.js"))) as {
      PROGRAM_EXTERNALS: string[];
    };
    const deps =
      (
        JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
          dependencies?: Record<string, string>;
        }
      ).dependencies ?? {};
    expect(PROGRAM_EXTERNALS.length).toBeGreaterThan(0);
    for (const name of PROGRAM_EXTERNALS) expect(Object.keys(deps)).toContain(name);
  });
});
