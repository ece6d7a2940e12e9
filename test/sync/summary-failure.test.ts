import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors/api-error.js";
import { NO_COMMAND } from "../../src/errors/codes.js";
import { FileSystemError } from "../../src/errors/file-system-error.js";
import { InterruptedError } from "../../src/errors/interrupted-error.js";
import { NetworkError } from "../../src/errors/network-error.js";
import { RateLimitedError } from "../../src/errors/rate-limited-error.js";
import { SvcError } from "../../src/errors/svc-error.js";
import { itemError } from "../../src/run/error.js";
import { classifyFailure } from "../../src/run/failure.js";
import { summarize, wouldFetch } from "../../src/sync/summary.js";
import type { SyncItemResult } from "../../src/sync/types.js";

function item(status: SyncItemResult["status"], reason: SyncItemResult["reason"]): SyncItemResult {
  return {
    slug: "p",
    edition: "standard",
    status,
    reason,
    path: null,
    bytes: null,
    sha256: null,
    error: null,
  };
}

const api = (code: string, httpStatus: number) =>
  new ApiError({ code, message: "m", httpStatus, requestId: "req_1" });

describe("summarize (cli-contract: JSON documents, packs sync)", () => {
  it("counts downloaded+resumed+repaired, up-to-date+adopted, and failed", () => {
    const items = [
      item("downloaded", "new"),
      item("resumed", "missing locally"),
      item("repaired", "changed locally"),
      item("up-to-date", "unchanged upstream"),
      item("adopted", "new"),
      item("would-download", "new"),
      item("would-download", "authoring edition, if the pack has one"),
      item("unavailable", "no authoring edition"),
      item("failed", "new"),
    ];
    expect(summarize(items)).toEqual({ downloaded: 3, up_to_date: 2, failed: 1 });
    expect(wouldFetch(items)).toEqual([item("would-download", "new")]);
  });

  it("an empty run counts nothing", () => {
    expect(summarize([])).toEqual({ downloaded: 0, up_to_date: 0, failed: 0 });
  });
});

describe("classifyFailure (cli-contract: packs sync)", () => {
  it("stops on account-level codes and on failures every later item would meet", () => {
    expect(classifyFailure(api("invalid_api_key", 401), "standard")).toBe("stop");
    expect(classifyFailure(api("blocked", 403), "standard")).toBe("stop");
    expect(classifyFailure(api("insufficient_scope", 403), "standard")).toBe("stop");
    expect(
      classifyFailure(new RateLimitedError("r", { retryAfterSeconds: 9, now: 0 }), "standard"),
    ).toBe("stop");
    expect(classifyFailure(new InterruptedError("SIGTERM"), "standard")).toBe("stop");
    expect(classifyFailure(new FileSystemError("f", { code: "no_space" }), "standard")).toBe(
      "stop",
    );
    expect(classifyFailure(new TypeError("bug"), "standard")).toBe("stop");
  });

  it("goes on after an item-level failure; no authoring edition is not a failure", () => {
    expect(classifyFailure(api("not_entitled", 403), "standard")).toBe("item");
    expect(classifyFailure(api("file_unavailable", 404), "standard")).toBe("item");
    expect(classifyFailure(api("file_unavailable", 404), "authoring")).toBe("unavailable");
    expect(classifyFailure(new FileSystemError("f", { code: "file_exists" }), "standard")).toBe(
      "item",
    );
    expect(classifyFailure(new FileSystemError("f", { code: "special_file" }), "standard")).toBe(
      "item",
    );
    expect(classifyFailure(new NetworkError("n"), "standard")).toBe("item");
  });

  it("reports an item's error with its code, status, request id and hint", () => {
    expect(itemError(api("not_found", 404))).toEqual({
      code: "not_found",
      message: "m",
      http_status: 404,
      request_id: "req_1",
      hint: "No such published item; `svc-dl packs list` shows the packs you own.",
    });
  });

  it("the hint: the thrower's own wins; else the table's, rendered for the command at hand", () => {
    const own = new SvcError("m", { code: "not_found", httpStatus: 404, hint: "look elsewhere" });
    expect(itemError(own).hint).toBe("look elsewhere");
    const assets = { ...NO_COMMAND, command: "asset get", exists: () => true };
    expect(itemError(api("not_found", 404), assets).hint).toContain("`svc-dl assets list`");
  });
});
