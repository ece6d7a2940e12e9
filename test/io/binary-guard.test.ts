import { describe, expect, it } from "vitest";
import { SvcError } from "../../src/errors/svc-error.js";
import { refuseBinaryToTerminal } from "../../src/io/binary-guard.js";

describe("refuseBinaryToTerminal", () => {
  it("refuses a terminal with binary_to_terminal, exit 2", () => {
    let caught: unknown;
    try {
      refuseBinaryToTerminal({ stdoutIsTTY: true });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(SvcError);
    expect((caught as SvcError).code).toBe("binary_to_terminal");
    expect((caught as SvcError).exitCode).toBe(2);
  });

  it("lets a pipe or a file through", () => {
    expect(refuseBinaryToTerminal({ stdoutIsTTY: false })).toBeUndefined();
  });
});
