import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// Sockets are undici's (docs/design.md): only the body fast path opens its own connections;
// everything else, doctor's probes included (src/http/probe-connect.ts), goes through undici.
const SRC = fileURLToPath(new URL("../../src", import.meta.url));
const ALLOWED = ["http/fast-body/", "mock-server/"];
const OPENS =
  /\b(?:connect|createConnection)\b[^;]*from "node:(?:net|tls)"|from "node:(?:net|tls)"[^;]*\b(?:connect|createConnection)\b/s;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

describe("who opens sockets", () => {
  it("no module outside the body fast path (and the mock service) imports a socket connect", () => {
    const opening = files(SRC)
      .map((f) => relative(SRC, f).split("\\").join("/"))
      .filter((rel) => !ALLOWED.some((a) => rel.startsWith(a)))
      .filter((rel) =>
        readFileSync(join(SRC, rel), "utf8")
          .split(/(?<=;)\n/)
          .some(
            (statement) =>
              statement.startsWith("import") &&
              (OPENS.test(statement) ||
                /^import \* as \w+ from "node:(?:net|tls)"/.test(statement)),
          ),
      );
    expect(opening).toEqual([]);
  });
});
