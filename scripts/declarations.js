/**
 * The library's type declarations, one rolled-up `.d.ts` per export of package.json
 * (`"."` → dist/types/index.d.ts, `"./mock"` → dist/types/mock-server/index.d.ts, the paths
 * its `types` conditions name): `tsc -p tsconfig.build.json` emits a `.d.ts` per module into a
 * scratch folder, and API Extractor (`@microsoft/api-extractor`, its "dtsRollup") gathers what
 * each entry point reaches into one file, with the packages it names (`undici`, `zod/mini`)
 * left as imports. One file per export instead of the 190 tsc writes: a smaller package, and
 * no internal module path a consumer could come to depend on.
 *
 * API Extractor's other outputs (API report, doc model) stay off; its notes that a type
 * reached from an export is not itself exported stay silent (those types are in the file,
 * only not importable by name, which is the intent). Any other warning or error fails.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** package.json's exports with types: the entry's path under tsc's output → the rolled-up file. */
const ENTRIES = [
  ["index.d.ts", "dist/types/index.d.ts"],
  ["mock-server/index.d.ts", "dist/types/mock-server/index.d.ts"],
];

/**
 * Writes the rolled-up declarations under `root` (the repository); returns a list of
 * problems (tsc's output, API Extractor's warnings and errors), empty when all went well.
 * `outDir` (default: `root`) receives `dist/types/…`, so a test can write elsewhere.
 */
export async function writeDeclarations(root, outDir = root) {
  const scratch = mkdtempSync(join(tmpdir(), "svc-dl-types-"));
  try {
    const tsc = join(root, "node_modules/typescript/bin/tsc");
    const r = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json", "--outDir", scratch], {
      cwd: root,
      encoding: "utf8",
    });
    if (r.status !== 0) return [`tsc -p tsconfig.build.json: ${r.stdout}${r.stderr}`];
    rmSync(join(outDir, "dist/types"), { recursive: true, force: true });
    const { Extractor, ExtractorConfig } = await import("@microsoft/api-extractor");
    const problems = [];
    for (const [entry, out] of ENTRIES) {
      const config = ExtractorConfig.prepare({
        configObject: {
          projectFolder: root,
          mainEntryPointFilePath: join(scratch, entry),
          compiler: { tsconfigFilePath: join(root, "tsconfig.build.json") },
          dtsRollup: { enabled: true, untrimmedFilePath: join(outDir, out) },
          apiReport: { enabled: false },
          docModel: { enabled: false },
          tsdocMetadata: { enabled: false },
          messages: {
            compilerMessageReporting: { default: { logLevel: "warning" } },
            extractorMessageReporting: {
              default: { logLevel: "warning" },
              "ae-forgotten-export": { logLevel: "none" },
              "ae-missing-release-tag": { logLevel: "none" },
              // `{@link}`s name modules of the repository, not exports of the package
              "ae-unresolved-link": { logLevel: "none" },
            },
            tsdocMessageReporting: { default: { logLevel: "none" } },
          },
        },
        packageJsonFullPath: join(root, "package.json"),
      });
      Extractor.invoke(config, {
        localBuild: true,
        messageCallback: (m) => {
          m.handled = true;
          if (m.logLevel === "warning" || m.logLevel === "error") {
            problems.push(`${out}: ${m.formatMessageWithLocation(root)}`);
          }
        },
      });
    }
    return problems;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
