/**
 * svc-dl-mock: a local mock of the asset download service
 * (`shared/spec/asset-download-service.md`), for tests, `npm run demo` and
 * offline script testing. Imports nothing from the rest of svc-dl.
 */
export {
  DEFAULT_FIXTURE_URL,
  defaultFixture,
  loadFixtureFile,
  validateFixture,
} from "./fixture.js";
export { isWellFormedApiKey, keyPreview, makeApiKey } from "./keys.js";
export { DEFAULT_LIMITS } from "./limiter.js";
export { startMockService } from "./server.js";
export type * from "./types.js";
