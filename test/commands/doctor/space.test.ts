import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { spaceCheck } from "../../../src/commands/doctor/space-check.js";
import { runCli } from "../../helpers/cli.js";
import { useMockService } from "../../helpers/mock.js";

/** `svc-dl doctor DIR`: free space against the bytes a sync of DIR would fetch (cli-contract "Operating unattended"). */

const shared = useMockService();

interface DoctorDoc {
  checks: { name: string; status: string; finding: string; hint: string | null }[];
}

async function freeSpace(dir: string, env = shared.env()) {
  const r = await runCli(["doctor", dir, "--json"], { env });
  return (JSON.parse(r.stdout) as DoctorDoc).checks.find((c) => c.name === "free-space");
}

/** Every entry below `dir` with its size and mtime: what "DIR untouched" compares. */
function snapshot(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .sort()
    .map((name) => {
      const st = statSync(join(dir, name));
      return `${name} ${st.size} ${st.mtimeMs} ${st.mode}`;
    });
}

describe("doctor DIR: free space against what a sync would fetch", () => {
  it("a DIR not synced yet: every owned pack is new, of unknown size; DIR is not created", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "svc-dl-doctor-space-")), "assets");
    const check = await freeSpace(dir);
    expect(check?.status).toBe("ok");
    expect(check?.finding).toMatch(
      /^\d+ bytes \(.*\) free at .*; a sync would fetch (\d+) packs: \1 new of unknown size \(the pack list gives no sizes\)$/,
    );
    expect(existsSync(dir)).toBe(false);
  });

  it("after a partial sync: new packs estimated from the recorded ones, a deleted file by its record; DIR untouched", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-dl-doctor-space-"));
    const synced = await runCli(["packs", "sync", dir, "--include", "low-poly-forest"], {
      env: shared.env(),
    });
    expect(synced.code, synced.stderr).toBe(0);
    const before = snapshot(dir);
    const check = await freeSpace(dir);
    expect(snapshot(dir)).toEqual(before);
    const m =
      /a sync would fetch (\d+) packs: \1 new, about (\d+) bytes \(.*\) at the 2\.0 MiB average of the packs recorded$/.exec(
        check?.finding ?? "",
      );
    expect(m, check?.finding).not.toBeNull();
    expect(Number(m?.[2])).toBe(Number(m?.[1]) * 2 * 1024 * 1024);

    const file = readdirSync(dir).find((n) => n.endsWith(".zip"));
    rmSync(join(dir, file ?? "missing"));
    const again = await freeSpace(dir);
    expect(again?.finding).toMatch(
      /a sync would fetch (\d+) packs: 1 again, 2097152 bytes \(2\.0 MiB\); \d+ new, about/,
    );
  });

  it("without an accepted key only the free space is reported", async () => {
    shared.mock.set({ keys: { key_demo: { revoked: true } } });
    try {
      const check = await freeSpace(mkdtempSync(join(tmpdir(), "svc-dl-doctor-space-")));
      expect(check?.finding).toMatch(
        /free at .*; what a sync would fetch needs the key checks to pass$/,
      );
    } finally {
      shared.mock.set({ keys: { key_demo: { revoked: false } } });
    }
  });

  it("space shorter than the bytes to fetch warns with how much to free and how to sync less", () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-dl-doctor-space-"));
    const check = spaceCheck(dir, { count: 1, knownBytes: 2 ** 50, unknown: 0, averageBytes: 1 });
    expect(check.status).toBe("warn");
    expect(check.finding).toMatch(/a sync would fetch 1 pack: 1 again, 1125899906842624 bytes/);
    expect(check.hint).toMatch(
      /^Free at least .* on that file system, or sync fewer packs \(packs sync --include, --exclude, --category\)\.$/,
    );
    const fits = spaceCheck(dir, { count: 0, knownBytes: 0, unknown: 0, averageBytes: undefined });
    expect(fits).toMatchObject({ status: "ok", hint: null });
    expect(fits.finding).toMatch(/; a sync would fetch nothing$/);
  });
});
