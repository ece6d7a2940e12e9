import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors/api-error.js";
import { jsonErrorDocument } from "../../src/errors/format.js";
import { NetworkError } from "../../src/errors/network-error.js";

describe("jsonErrorDocument", () => {
  it("has exactly code, message, http_status, request_id, retryable and hint", () => {
    const doc = jsonErrorDocument(
      new ApiError({
        code: "not_found",
        message: "No such pack",
        httpStatus: 404,
        requestId: "req_1",
      }),
    );
    expect(Object.keys(doc.error).sort()).toEqual([
      "code",
      "hint",
      "http_status",
      "message",
      "request_id",
      "retryable",
    ]);
    expect(doc.error).toMatchObject({
      code: "not_found",
      message: "No such pack",
      http_status: 404,
      request_id: "req_1",
      retryable: false,
    });
    expect(doc.error.hint).toEqual(expect.stringContaining("No such published item"));
  });

  it("has null status and request id when no response came back", () => {
    const doc = jsonErrorDocument(new NetworkError("could not reach", { requestId: "svcdl_sent" }));
    expect(doc.error.http_status).toBeNull();
    expect(doc.error.request_id).toBeNull();
    expect(doc.error.retryable).toBe(true);
  });
});
