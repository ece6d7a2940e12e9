import { Chalk } from "chalk";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors/api-error.js";
import { toSvcError } from "../../src/errors/format.js";
import { formatErrorForHumans } from "../../src/io/error-lines.js";

const plain = new Chalk({ level: 0 });

describe("formatErrorForHumans", () => {
  it("names the code, the status and the request id, then the hint", () => {
    const err = new ApiError({
      code: "blocked",
      message: "Access denied",
      httpStatus: 403,
      requestId: "req_abcdef12",
    });
    const text = formatErrorForHumans(err, plain, false);
    expect(text.split("\n")[0]).toBe(
      "error: Access denied (code blocked, HTTP 403, request id req_abcdef12)",
    );
    expect(text).toContain("hint: ");
    expect(text).not.toContain("    at ");
  });

  it("adds the stack only when verbose", () => {
    const err = toSvcError(new TypeError("oops"));
    expect(err.exitCode).toBe(1);
    expect(formatErrorForHumans(err, plain, false)).not.toContain("    at ");
    expect(formatErrorForHumans(err, plain, true)).toContain("    at ");
  });
});
