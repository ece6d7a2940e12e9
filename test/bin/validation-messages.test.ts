import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { spawnCli } from "../helpers/cli.js";

// zod/mini registers no locale (src/io/schema.ts installs the English one): only the real
// program, which loads no other zod, shows whether its messages are still words.

describe("validation messages of the program", () => {
  it("name what is wrong in English, as before the move to zod/mini", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-dl-messages-"));
    const manifest = join(dir, "svc-dl.json");
    writeFileSync(manifest, '{"dir":"v","packs":[{"slug":"a","edition":"x"}],"assets":[3]}');
    const r = await spawnCli(["install", "--manifest", manifest]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `invalid manifest ${manifest}: packs[0].edition: Invalid option: expected one of "standard"|"authoring"; assets[0]: Invalid input: expected object, received number (code invalid_manifest)`,
    );
  });
});
