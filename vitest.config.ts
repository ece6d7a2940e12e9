import { availableParallelism } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The install routes of the package take minutes: `npm run test:package`, a CI step of its own.
    exclude: [...configDefaults.exclude, "test/package/**"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // At least three workers even on a two-core machine (most tests wait on loopback sockets and
    // child processes: on 2 cores, 3 workers took 59 s where 2 took 77 s), at most eight (each
    // worker starts its own mock services and TLS fronts).
    maxWorkers: Math.min(8, Math.max(3, availableParallelism())),
    // One module graph per worker instead of one per file: re-importing src/ for each of ~80
    // files cost more CPU than the tests themselves. Tests keep no module-level state that
    // another file could see (each starts its own mock service and temp directories).
    isolate: false,
    globalSetup: ["test/helpers/temp-root.ts", "test/helpers/global-setup.ts"],
  },
});
