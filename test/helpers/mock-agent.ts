import { MockAgent } from "undici";
import { afterEach, beforeEach } from "vitest";
import { HttpClient } from "../../src/http/client.js";

/** The stubbed service's base URL in MockAgent tests. */
export const STUB_API = "https://svc.example";

/**
 * A fresh undici MockAgent per test (no network: `disableNetConnect`); a stub the test set up
 * but no request used fails the test. Returns a getter valid inside tests.
 */
export function useMockAgent(): () => MockAgent {
  let agent: MockAgent | undefined;
  beforeEach(() => {
    agent = new MockAgent();
    agent.disableNetConnect();
  });
  afterEach(async () => {
    agent?.assertNoPendingInterceptors();
    await agent?.close();
  });
  return () => {
    if (!agent) throw new Error("useMockAgent: call inside a test");
    return agent;
  };
}

/** An HttpClient on `agent` for {@link STUB_API}: a test key, no real waits, fixed jitter. */
export function stubClient(agent: MockAgent): HttpClient {
  return new HttpClient({
    baseUrl: new URL(STUB_API),
    apiKey: () => "svc_live_abcdefghijklmnopqrstuvwxyz012345_00000000",
    userAgent: "svc-dl/test",
    dispatcher: agent,
    clock: { now: () => 0, sleep: async () => {} },
    retry: { random: () => 0.5 },
  });
}
