import { readdirSync, readFileSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import v8 from "node:v8";
import { describe, expect, it, vi } from "vitest";
import { createClient } from "../../src/index.js";
import { useMockService } from "../helpers/mock.js";

const shared = useMockService({ packSize: 16 * 1024, assetSize: 16 * 1024 });
const root = fileURLToPath(new URL("../../", import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : [join(dir, e.name)],
  );
}

describe("V8 flags belong to the program, not to the library", () => {
  it("a library client makes requests without changing its host's V8 flags", async () => {
    const spy = vi.spyOn(v8, "setFlagsFromString");
    syncBuiltinESMExports(); // named imports of node:v8 see the spy too
    try {
      const c = createClient({ baseUrl: shared.mock.baseUrl, apiKey: shared.mock.apiKey });
      const me = await c.whoami();
      expect(me.account.id).toMatch(/^usr_/);
      expect(spy).not.toHaveBeenCalled();
    } finally {
      spy.mockRestore();
      syncBuiltinESMExports();
    }
  });

  it("only bin/svc-dl.js sets one, before it loads the CLI", () => {
    const setters = sourceFiles(join(root, "src")).filter((f) =>
      /setFlagsFromString|node:v8/.test(readFileSync(f, "utf8")),
    );
    expect(setters).toEqual([]);
    const bin = readFileSync(join(root, "bin", "svc-dl.js"), "utf8");
    const flag = bin.indexOf(
      'setFlagsFromString("--liftoff-only --no-wasm-tier-up --no-wasm-dynamic-tiering")',
    );
    expect(flag).toBeGreaterThan(0);
    expect(flag).toBeLessThan(bin.indexOf("dist/cli.js"));
  });
});
