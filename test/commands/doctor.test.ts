import { mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { useMockService } from "../helpers/mock.js";

/** `svc-dl doctor [DIR]` (cli-contract "Operating unattended"). */

const shared = useMockService();

interface DoctorDoc {
  checks: { name: string; status: string; finding: string; hint: string | null }[];
}

describe("doctor", () => {
  it("all checks ok: one line each, exit 0, the key never printed", async () => {
    const r = await runCli(["doctor"], { env: shared.env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ok node: Node /m);
    expect(r.stdout).toMatch(/^ok base-url: /m);
    expect(r.stdout).toMatch(/^ok api-key: present \(from SVC_API_KEY\)/m);
    expect(r.stdout).toMatch(/^ok key-accepted: accepted; scopes .*downloads:read/m);
    expect(r.stdout + r.stderr).not.toContain(shared.env().SVC_API_KEY);
  });

  it("a revoked key fails its check with a hint: exit 1; --json lists the checks", async () => {
    shared.mock.set({ keys: { key_demo: { revoked: true } } });
    try {
      const r = await runCli(["doctor", "--json"], { env: shared.env() });
      expect(r.code).toBe(1);
      const doc = JSON.parse(r.stdout) as DoctorDoc;
      const failed = doc.checks.find((c) => c.name === "key-accepted");
      expect(failed?.status).toBe("fail");
      expect(failed?.finding).toMatch(/revoked_api_key/);
      expect(failed?.hint).toBeTruthy();
      expect(r.stdout).not.toContain(shared.env().SVC_API_KEY);
    } finally {
      shared.mock.set({ keys: { key_demo: { revoked: false } } });
    }
  });

  it("no base URL: fail base-url with where to set it", async () => {
    const r = await runCli(["doctor"], { env: { SVC_API_KEY: shared.env().SVC_API_KEY } });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^fail base-url: /m);
    expect(r.stdout).toMatch(/hint: .*SVC_BASE_URL/);
  });

  it("with DIR: a state folder that is a symlink fails the state check", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-dl-doctor-"));
    const elsewhere = mkdtempSync(join(tmpdir(), "svc-dl-doctor-elsewhere-"));
    writeFileSync(join(elsewhere, "state.json"), '{"version":1,"items":{}}');
    symlinkSync(elsewhere, join(dir, ".svc-dl"));
    const r = await runCli(["doctor", dir, "--json"], { env: shared.env() });
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as DoctorDoc;
    expect(doc.checks.find((c) => c.name === "state")?.status).toBe("fail");
    const ok = await runCli(["doctor", mkdtempSync(join(tmpdir(), "svc-dl-doctor-")), "--json"], {
      env: shared.env(),
    });
    expect(ok.code).toBe(0);
  });
});
