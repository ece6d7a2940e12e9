import type { MockService } from "../../src/mock-server/index.js";

export { sha256Of, tempDir } from "./files.js";

/** The environment that points the CLI at `mock` with its demo key. */
export function envFor(mock: MockService): Record<string, string> {
  return { SVC_BASE_URL: mock.baseUrl, SVC_API_KEY: mock.apiKey };
}

/** Requests the mock's CDN origin answered with a body (file downloads). */
export function cdnRequests(mock: MockService): MockService["requests"] {
  return mock.requests.filter((r) => r.origin === "cdn");
}

/** ESC: any cursor-control or colour sequence starts with it. */
export const ESC = "\u001b";
