import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { NO_COMMAND, renderHint } from "../../src/errors/codes.js";
import { spaceFacts } from "../../src/io/free-space.js";

describe("a full disk's facts", () => {
  const enospc = Object.assign(new Error("no space left on device"), { code: "ENOSPC" });

  it("the free bytes of the file system and the bytes written, for ENOSPC only", () => {
    const facts = spaceFacts(enospc, join(tmpdir(), "x.part"), 3000);
    expect(facts?.written).toBe(3000);
    expect(typeof facts?.free).toBe("number");
    const eio = Object.assign(new Error("i/o"), { code: "EIO" });
    expect(spaceFacts(eio, join(tmpdir(), "x.part"), 3000)).toBeUndefined();
  });

  it("the no_space hint names them", () => {
    expect(renderHint("no_space", NO_COMMAND, { free: 4096, written: 1536 })).toBe(
      "The disk had 4.0 KiB free after 1.5 KiB of the file were written: free at least the rest of its size and run the same command again; the partial data is kept.",
    );
    expect(renderHint("no_space", NO_COMMAND, {})).toMatch(/^Free some disk space/);
  });
});
