import { afterAll, beforeAll, beforeEach } from "vitest";
import { type MockService, startMockService } from "../../src/mock-server/index.js";
import type { MockServiceOptions } from "../../src/mock-server/types.js";

/** One mock service shared by a test file, reset before every test. */
export interface SharedMock {
  /** The running mock (valid inside tests and hooks). */
  readonly mock: MockService;
  /** `SVC_BASE_URL` and `SVC_API_KEY` of the demo account, for runCli's env. */
  env(): { SVC_BASE_URL: string; SVC_API_KEY: string };
}

/**
 * Starts one mock service for the calling test file (beforeAll), closes it (afterAll), and
 * before each test clears its faults, rate-limit counters and request log.
 */
export function useMockService(options: MockServiceOptions = {}): SharedMock {
  let mock: MockService | undefined;
  beforeAll(async () => {
    mock = await startMockService({ quiet: true, ...options });
  });
  afterAll(async () => {
    await mock?.close();
  });
  beforeEach(() => {
    mock?.set({ faults: {} });
    mock?.resetLimits();
    mock?.clearLog();
  });
  const current = (): MockService => {
    if (!mock) throw new Error("the mock service is not running (use it inside tests)");
    return mock;
  };
  return {
    get mock() {
      return current();
    },
    env: () => ({ SVC_BASE_URL: current().baseUrl, SVC_API_KEY: current().apiKey }),
  };
}
