import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CliResult, type LaunchOptions, spawnCli } from "./cli.js";

/**
 * Runs svc-dl as a child process (see {@link spawnCli}) with a preload that writes Node's
 * `process.moduleLoadList` at exit; returns the result and that list (`NativeModule tls`, …):
 * which built-ins the run loaded.
 */
export async function builtinsLoadedBy(
  args: string[],
  options: LaunchOptions = {},
): Promise<{ r: CliResult; builtins: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), "svc-dl-builtins-"));
  try {
    const list = join(dir, "builtins.txt");
    writeFileSync(
      join(dir, "builtins.cjs"),
      `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(list)}, process.moduleLoadList.join("\\n")));\n`,
    );
    const r = await spawnCli(args, {
      ...options,
      env: { ...options.env, NODE_OPTIONS: `--require ${join(dir, "builtins.cjs")}` },
    });
    return { r, builtins: readFileSync(list, "utf8").split("\n") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
