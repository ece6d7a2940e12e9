import { describe, expect, it } from "vitest";
import { parseRetryAfter, readRateLimitHeaders } from "../../src/http/rate-limit-headers.js";

describe("readRateLimitHeaders", () => {
  it("reads the structured RateLimit and RateLimit-Policy headers", () => {
    expect(
      readRateLimitHeaders(
        { ratelimit: '"download";r=4;t=17', "ratelimit-policy": '"download";q=30;w=60' },
        0,
      ),
    ).toEqual({ policy: "download", quota: 30, windowSeconds: 60, remaining: 4, resetSeconds: 17 });
  });

  it("falls back on X-RateLimit-* (reset is seconds from now, not a timestamp)", () => {
    expect(
      readRateLimitHeaders(
        { "x-ratelimit-limit": "120", "x-ratelimit-remaining": "0", "x-ratelimit-reset": "42" },
        0,
      ),
    ).toEqual({ quota: 120, remaining: 0, resetSeconds: 42 });
  });

  it("prefers the structured header when both spellings disagree", () => {
    const info = readRateLimitHeaders(
      { ratelimit: '"read";r=2;t=5', "x-ratelimit-remaining": "9", "x-ratelimit-reset": "50" },
      0,
    );
    expect(info.remaining).toBe(2);
    expect(info.resetSeconds).toBe(5);
  });

  it("tolerates the older dictionary form and ignores garbage", () => {
    expect(readRateLimitHeaders({ ratelimit: "limit=10, remaining=3, reset=8" }, 0)).toMatchObject({
      remaining: 3,
      resetSeconds: 8,
    });
    expect(readRateLimitHeaders({ ratelimit: "%%%", "x-ratelimit-remaining": "-1" }, 0)).toEqual(
      {},
    );
  });

  it("reads Retry-After in seconds or as an HTTP date", () => {
    expect(parseRetryAfter("12", 0)).toBe(12);
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(parseRetryAfter("Wed, 01 Jan 2025 00:00:30 GMT", now)).toBe(30);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
