import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MockService } from "../../src/mock-server/index.js";

/** A fresh empty directory for one test. */
export function tempDir(prefix = "svc-dl-dl-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** The environment that points the CLI at `mock` with its demo key. */
export function envFor(mock: MockService): Record<string, string> {
  return { SVC_BASE_URL: mock.baseUrl, SVC_API_KEY: mock.apiKey };
}

/** Lower-case hex SHA-256 of a file. */
export function sha256Of(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

/** Requests the mock's CDN origin answered with a body (file downloads). */
export function cdnRequests(mock: MockService): MockService["requests"] {
  return mock.requests.filter((r) => r.origin === "cdn");
}

/** ESC: any cursor-control or colour sequence starts with it. */
export const ESC = "\u001b";
