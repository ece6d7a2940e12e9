import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { NO_COMMAND, renderHint } from "../../src/errors/codes.js";
import { spaceFacts } from "../../src/io/free-space.js";

describe("a full disk's facts", () => {
  const enospc = Object.assign(new Error("no space left on device"), { code: "ENOSPC" });

  it("the free bytes of the file system and the bytes written, for ENOSPC only", () => {
    const facts = spaceFacts(enospc, join(tmpdir(), "x.part"), 3000);
    expect(facts?.written).toBe("2.9 KiB");
    expect(facts?.free).toMatch(/^\d[\d.]* (B|KiB|MiB|GiB|TiB)$/);
    const eio = Object.assign(new Error("i/o"), { code: "EIO" });
    expect(spaceFacts(eio, join(tmpdir(), "x.part"), 3000)).toBeUndefined();
  });

  it("the no_space hint names them", () => {
    expect(renderHint("no_space", NO_COMMAND, { free: "4.0 KiB", written: "1.5 KiB" })).toBe(
      "Free some disk space and run the same command again; the partial data is kept (the disk had 4.0 KiB free after 1.5 KiB of the file was written).",
    );
    expect(renderHint("no_space", NO_COMMAND, { free: "0 B" })).toMatch(
      /\(the disk had 0 B free before any of the file was written\)\.$/,
    );
    expect(renderHint("no_space", NO_COMMAND, {})).toMatch(/the partial data is kept\.$/);
  });
});
