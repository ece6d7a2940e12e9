import { chmodSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { budgetCheck } from "../../../src/commands/doctor/budget-check.js";
import { runCli } from "../../helpers/cli.js";
import { manualClock } from "../../helpers/clock.js";
import { useMockService } from "../../helpers/mock.js";

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

  it("a group-writable config dir fails the config check with a hint; a private one is ok", async () => {
    const conf = mkdtempSync(join(tmpdir(), "svc-dl-doctor-conf-"));
    chmodSync(conf, 0o770);
    const r = await runCli(["doctor", "--json"], {
      env: { ...shared.env(), SVC_DL_CONFIG_DIR: conf },
    });
    expect(r.code).toBe(1);
    const check = (JSON.parse(r.stdout) as DoctorDoc).checks.find((c) => c.name === "config");
    expect(check?.status).toBe("fail");
    expect(check?.finding).toMatch(/writable by its group.*unsafe_config/);
    expect(check?.hint).toMatch(/chmod 700/);
    chmodSync(conf, 0o700);
    const ok = await runCli(["doctor"], { env: { ...shared.env(), SVC_DL_CONFIG_DIR: conf } });
    expect(ok.stdout).toMatch(/^ok config: /m);
  });

  it("a foreign or symlinked cache dir fails the cache check; an svc-dl cache reports its size", async () => {
    const foreign = mkdtempSync(join(tmpdir(), "svc-dl-doctor-cache-"));
    writeFileSync(join(foreign, "notes.txt"), "mine");
    const r = await runCli(["doctor"], { env: { ...shared.env(), SVC_DL_CACHE_DIR: foreign } });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^fail cache: .*notes\.txt.*foreign_cache_dir/m);
    expect(r.stdout).toMatch(/hint: .*SVC_DL_CACHE_DIR/);
    // doctor itself has no --no-cache: the hint names the command that has it
    expect(r.stdout).toMatch(/hint: .*run install with --no-cache/);
    expect(r.stdout).not.toMatch(/or run with --no-cache/);

    const link = join(mkdtempSync(join(tmpdir(), "svc-dl-doctor-link-")), "cache");
    symlinkSync(mkdtempSync(join(tmpdir(), "svc-dl-doctor-target-")), link);
    const l = await runCli(["doctor"], { env: { ...shared.env(), SVC_DL_CACHE_DIR: link } });
    expect(l.code).toBe(1);
    expect(l.stdout).toMatch(/^fail cache: .*symbolic link.*unsafe_cache_dir/m);

    const ours = mkdtempSync(join(tmpdir(), "svc-dl-doctor-ours-"));
    writeFileSync(join(ours, "CACHEDIR.TAG"), "Signature: 8a477f597d28d172789f06886806bc55\n");
    const hash = "ab".padEnd(64, "0");
    mkdirSync(join(ours, "sha256", "ab"), { recursive: true });
    writeFileSync(join(ours, "sha256", "ab", hash), "12345");
    const ok = await runCli(["doctor"], { env: { ...shared.env(), SVC_DL_CACHE_DIR: ours } });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^ok cache: .*1 entry, 5 bytes/m);
  });

  it("a clock 5 minutes off the service's Date header warns (exit 0); in sync is ok", async () => {
    const r = await runCli(["doctor"], {
      env: shared.env(),
      clock: manualClock(Date.now() + 5 * 60_000),
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^warn clock: 30\d s ahead of the service/m);
    expect(r.stdout).toMatch(/hint: .*signed download URLs expire/);
    const ok = await runCli(["doctor"], { env: shared.env() });
    expect(ok.stdout).toMatch(/^ok clock: [01] s /m);
  });

  it("with DIR: a live lock holder warns with its owner; free space is reported", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-dl-doctor-lock-"));
    const free = await runCli(["doctor", dir], { env: shared.env() });
    expect(free.stdout).toMatch(/^ok lock: .* is not locked/m);
    expect(free.stdout).toMatch(/^ok free-space: [1-9]\d* bytes \(.*\) free at /m);
    mkdirSync(join(dir, ".svc-dl", "lock"), { recursive: true, mode: 0o700 });
    chmodSync(join(dir, ".svc-dl"), 0o700);
    const owner = { pid: process.pid, host: hostname(), since: "2026-01-01T00:00:00Z" };
    writeFileSync(join(dir, ".svc-dl", "lock-owner.json"), JSON.stringify(owner), { mode: 0o600 });
    const r = await runCli(["doctor", dir, "--json"], { env: shared.env() });
    expect(r.code).toBe(0);
    const lock = (JSON.parse(r.stdout) as DoctorDoc).checks.find((c) => c.name === "lock");
    expect(lock?.status).toBe("warn");
    expect(lock?.finding).toContain(`pid ${process.pid} on `);
    expect(lock?.hint).toMatch(/--wait-lock/);
  });

  it("download budget: unknown until the first download, never learnt by spending one; the read budget beside it", async () => {
    const r = await runCli(["doctor", "--json"], { env: shared.env() });
    const budget = (JSON.parse(r.stdout) as DoctorDoc).checks.find((c) => c.name === "budget");
    expect(budget).toEqual({
      name: "budget",
      status: "ok",
      finding:
        "download budget unknown until the first download (only a download answer reports it, and asking would spend one); read budget: 119 of 120 left, resets in 60 s",
      hint: null,
    });
    await shared.mock.settled();
    expect(shared.mock.requests.filter((q) => q.url.includes("/download"))).toEqual([]);
  });

  it("a spent read budget warns with when it resets (exit 0)", async () => {
    shared.mock.set({ limits: { read: { quota: 1, windowSeconds: 60 } } });
    try {
      const r = await runCli(["doctor"], { env: shared.env() });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^warn budget: read budget spent: 0 of 1 left, resets in 60 s$/m);
      expect(r.stdout).toMatch(/hint: Wait 60 s before the next run/);
    } finally {
      shared.mock.set({ limits: { read: { quota: 120, windowSeconds: 60 } } });
    }
  });

  it("a cheap answer that carries the download policy is used: left, or spent with a warning", () => {
    const headers = (r: number) => ({
      "ratelimit-policy": '"download";q=30;w=60',
      ratelimit: `"download";r=${r};t=42`,
    });
    expect(budgetCheck(headers(12), Date.now())).toMatchObject({
      status: "ok",
      finding: "download: 12 of 30 left, resets in 42 s",
    });
    expect(budgetCheck(headers(0), Date.now())).toMatchObject({
      status: "warn",
      finding: "download budget spent: 0 of 30 left, resets in 42 s",
    });
  });
});
