import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/**
 * Builds `dist/` once before the suite (`npm run build`: the esbuild bundle of
 * scripts/build.js), so integration tests spawn the CLI a user would run. Type errors are
 * reported by `npm run typecheck`, not here. Throws when the build fails.
 */
export default function setup(): void {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  const r = spawnSync(process.execPath, ["scripts/build.js"], { cwd: root, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`npm run build failed:\n${r.stderr}`);
}
