import { execFileSync } from "node:child_process";
import { existsSync, lstatSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/download.js";
import { useMockService } from "../helpers/mock.js";

/**
 * Devices, FIFOs and sockets at a destination (cli-contract "Downloads": svc-dl writes regular
 * files only, and a hostile directory may hold anything). Never written into, never replaced,
 * even with --force: as root, `-o /dev/null --force` would otherwise replace the system's
 * /dev/null with a regular file.
 */
const shared = useMockService({ packSize: 32 * 1024, assetSize: 16 * 1024 });

const fifoAt = (path: string): void => {
  execFileSync("mkfifo", [path]);
};

describe("special files at a destination", () => {
  it("-o FIFO --force: exit 8 special_file, the FIFO untouched, nothing created beside it", async () => {
    const dir = tempDir();
    fifoAt(join(dir, "out.glb"));
    const r = await runCli(["asset", "get", "forest-pine-tree", "-o", "out.glb", "--force"], {
      env: shared.env(),
      cwd: dir,
    });
    expect(r.code, r.stderr).toBe(8);
    expect(r.stderr).toContain("code special_file");
    expect(r.stderr).toContain("-o -");
    expect(lstatSync(join(dir, "out.glb")).isFIFO()).toBe(true);
    expect(existsSync(join(dir, ".svc-dl"))).toBe(false);
    expect(shared.mock.requests).toEqual([]);
  });

  it("packs sync: a FIFO at a pack's file name fails that pack only; the FIFO stays", async () => {
    const dir = tempDir();
    const info = await shared.mock.fileInfo({ kind: "pack", slug: "low-poly-forest" });
    fifoAt(join(dir, info.filename));
    const r = await runCli(["packs", "sync", dir, "--json"], { env: shared.env() });
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as {
      items: { slug: string; status: string; error: { code: string } | null }[];
    };
    const forest = doc.items.find((i) => i.slug === "low-poly-forest");
    expect(forest).toMatchObject({ status: "failed", error: { code: "special_file" } });
    expect(doc.items.filter((i) => i.status === "downloaded").length).toBe(doc.items.length - 1);
    expect(lstatSync(join(dir, info.filename)).isFIFO()).toBe(true);
  });
});
