import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Metafile } from "esbuild";
import { beforeAll, describe, expect, it } from "vitest";

// The command tree stays light (docs/design.md "Commands"): program.ts and every command
// builder are loaded for `--help`, so they import no npm package but commander; each command's
// run module is loaded once, by its builder's action. Start-up time itself is a row of
// `npm run bench`; this file checks the module graph.

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const COMMANDS = join(ROOT, "src/commands");

/** What the CLI entry loads before any command runs: its static imports, transitively. */
interface StaticGraph {
  /** Source files, relative to the repository root. */
  inputs: string[];
  /** npm packages (node: built-ins left out). */
  packages: string[];
}

/**
 * The graph of `src/cli.ts` in an esbuild bundle split like scripts/build.js's: its static
 * imports with npm packages left external, or (`whole`) every module the program may load, lazy
 * commands included, with npm packages bundled as in dist/cli.js.
 */
async function staticGraph(whole = false): Promise<StaticGraph> {
  const { metafile } = await build({
    entryPoints: ["src/cli.ts"],
    absWorkingDir: ROOT,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20.18",
    packages: whole ? "bundle" : "external",
    mainFields: ["module", "main"],
    write: false,
    metafile: true,
    outdir: "out",
    logLevel: "silent",
  });
  return reachable(metafile, "src/cli.ts", whole);
}

/** The outputs reached from `entryPoint` through static (and with `lazy`, dynamic) imports. */
function reachable(metafile: Metafile, entryPoint: string, lazy: boolean): StaticGraph {
  const outputs = metafile.outputs;
  const entry = Object.keys(outputs).find((k) => outputs[k]?.entryPoint === entryPoint);
  const seen = new Set<string>();
  const packages = new Set<string>();
  const stack = entry === undefined ? [] : [entry];
  for (let out = stack.pop(); out !== undefined; out = stack.pop()) {
    if (seen.has(out)) continue;
    seen.add(out);
    for (const i of outputs[out]?.imports ?? []) {
      if (i.kind !== "import-statement" && !(lazy && i.kind === "dynamic-import")) continue;
      if (!i.external) stack.push(i.path);
      else if (!i.path.startsWith("node:")) packages.add(i.path);
    }
  }
  const inputs = [...seen].flatMap((o) => Object.keys(outputs[o]?.inputs ?? {}));
  return { inputs: inputs.sort(), packages: [...packages].sort() };
}

/** Every .ts file under src/commands/, relative to it. */
function commandFiles(dir = COMMANDS): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? commandFiles(join(dir, e.name))
      : e.name.endsWith(".ts")
        ? [relative(COMMANDS, join(dir, e.name))]
        : [],
  );
}

describe("the command tree's module graph", () => {
  let graph: StaticGraph;
  beforeAll(async () => {
    graph = await staticGraph();
  });

  it("holds program.ts and the builders, never a run module (control: both exist)", () => {
    expect(graph.inputs).toContain("src/program.ts");
    expect(graph.inputs).toContain("src/commands/pack/get.ts");
    expect(commandFiles()).toContain("pack/get.run.ts");
    expect(graph.inputs.filter((f) => f.endsWith(".run.ts"))).toEqual([]);
  });

  it("loads no npm package but commander (the heavy ones load on first use)", () => {
    expect(graph.packages).toEqual(["commander"]);
  });

  it("loads, of src/commands/, only builders: command-kit, noun indexes, files with a run module", () => {
    const files = new Set(commandFiles());
    const notBuilders = graph.inputs
      .filter((f) => f.startsWith("src/commands/"))
      .map((f) => f.slice("src/commands/".length))
      .filter((f) => f !== "command-kit.ts" && !f.endsWith("/index.ts"))
      .filter((f) => !files.has(f.replace(/\.ts$/, ".run.ts")));
    expect(notBuilders).toEqual([]);
  });
});

describe("lazy loading in src/commands/", () => {
  it("each builder's action imports its own run module once; no other import() there", () => {
    const wrong = commandFiles().flatMap((file) => {
      const text = readFileSync(join(COMMANDS, file), "utf8");
      const targets = [...text.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g)].map((m) => m[1]);
      const own = `./${file.split("/").pop()?.replace(/\.ts$/, ".run.js")}`;
      const allowed = file.endsWith(".run.ts") ? [] : [own];
      const extra = targets.filter((t) => !allowed.includes(t ?? ""));
      return targets.length > 1 || extra.length > 0 ? [`${file}: ${targets.join(", ")}`] : [];
    });
    expect(wrong).toEqual([]);
  });
});

// The program validates with zod's functional API (src/io/schema.ts): the classic API was
// about 750 kB of JavaScript to compile at every start (docs/performance.md "Start-up").
describe("zod in the whole program (every command)", () => {
  let zod: string[];
  beforeAll(async () => {
    zod = (await staticGraph(true)).inputs.filter((i) => i.startsWith("node_modules/zod/"));
  });

  it("is zod/mini with the English locale (control: both are in the graph)", () => {
    expect(zod).toContain("node_modules/zod/v4/mini/schemas.js");
    expect(zod).toContain("node_modules/zod/v4/locales/en.js");
  });

  it("never zod's classic API, its JSON Schema code or another locale", () => {
    const unwanted = zod.filter(
      (i) =>
        i.startsWith("node_modules/zod/v4/classic/") ||
        /json-schema|\/compile\.js$/.test(i) ||
        (i.startsWith("node_modules/zod/v4/locales/") && !i.endsWith("/en.js")),
    );
    expect(unwanted).toEqual([]);
  });
});
