import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/**
 * Builds `dist/` once before the suite, so integration tests spawn the CLI a user would run.
 * Type errors are reported by `npm run typecheck`, not here (tsc still emits).
 */
export default function setup(): void {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  const tsc = fileURLToPath(new URL("../../node_modules/typescript/bin/tsc", import.meta.url));
  spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: root, stdio: "ignore" });
}
