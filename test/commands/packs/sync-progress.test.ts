import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useMockService } from "../../helpers/mock.js";
import { runCommand } from "../../helpers/run-main.js";

/**
 * cli-contract "Streams and output": on a terminal, `packs sync` shows the overall position
 * (pack N/M, bytes so far) above the file bar; without one, plain lines only.
 */

const shared = useMockService({ packSize: 16 * 1024 });

describe("packs sync progress", () => {
  it("a terminal gets a `pack N/M, bytes so far` line above each pack's bar", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-dl-progress-"));
    const r = await runCommand(["packs", "sync", dir], {
      env: shared.env(),
      stderrIsTTY: true,
      columns: 60,
    });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr.split("\n").filter((l) => / so far$/.test(l));
    expect(lines.length).toBeGreaterThan(1);
    expect(lines[0]).toMatch(/^pack 1\/(\d+), 0 B so far$/);
    const total = Number(/^pack 1\/(\d+)/.exec(lines[0] ?? "")?.[1]);
    expect(lines).toHaveLength(total);
    expect(lines[1]).toMatch(new RegExp(`^pack 2/${total}, 16\\.0 KiB so far$`));
  });

  it("without a terminal there is no overall line", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-dl-progress-"));
    const r = await runCommand(["packs", "sync", dir], { env: shared.env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/so far/);
  });
});
