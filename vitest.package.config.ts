import { defineConfig } from "vitest/config";

/**
 * `npm run test:package`: the package's install routes (test/package/), a CI step of its own
 * (.ci/run) because it installs, builds and packs fresh copies of the repository (a minute or
 * more); `npm test` leaves it out.
 */
export default defineConfig({
  test: {
    include: ["test/package/**/*.test.ts"],
    testTimeout: 300_000,
    hookTimeout: 600_000,
    pool: "forks",
    globalSetup: ["test/helpers/temp-root.ts"],
  },
});
