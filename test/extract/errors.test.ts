import { describe, expect, it } from "vitest";
import { FileSystemError } from "../../src/errors/file-system-error.js";
import { fsError } from "../../src/errors/fs-error.js";
import { extractFsError } from "../../src/extract/errors.js";

const errno = (code: string) => Object.assign(new Error(`${code}: failed`), { code });

describe("extractFsError", () => {
  it("maps the errno like every file-system error, with the table's extraction hint", () => {
    for (const [code, expected] of [
      ["ENOSPC", "no_space"],
      ["EDQUOT", "no_space"],
      ["EACCES", "permission_denied"],
      ["EROFS", "permission_denied"],
      ["EIO", "write_failed"],
    ] as const) {
      const err = extractFsError("cannot write a.txt", errno(code));
      expect(err).toBeInstanceOf(FileSystemError);
      expect(err.code).toBe(expected);
      expect(err.code).toBe(fsError("x", errno(code)).code);
      expect(err.message).toBe(`cannot write a.txt: ${code}: failed`);
      expect(err.siteHint).toBeUndefined(); // the table's row, from the facts
      expect(err.hint).toContain("the ZIP is kept");
    }
  });

  it("leaves other file-system errors to the table's hint", () => {
    expect(fsError("cannot write a.txt", errno("ENOSPC")).siteHint).toBeUndefined();
  });
});
