import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CODES, type ErrorCode } from "../../src/errors/codes.js";
import { type RunCliOptions, runCli, spawnCli, tempConfigDir } from "../helpers/cli.js";
import { tempDir } from "../helpers/files.js";
import { type FrontServer, startFrontServer } from "../helpers/front-server.js";
import { useMockService } from "../helpers/mock.js";
import { ENOSPC_PRELOAD, mountTmpfs } from "../helpers/mounts.js";
import { type ForwardProxy, startForwardProxy } from "../helpers/proxy.js";
import { makeSelfSignedCert, type SelfSignedCert } from "../helpers/tls.js";

/**
 * "Every hint a step that works": for each error code a user can fix, the error is triggered
 * against the mock service, the step its hint names is taken, and the outcome changes (the same
 * command, or the one the hint names, now succeeds). Codes whose hint cannot change the outcome
 * are listed with the reason, and codes walked in another file name it: together they cover the
 * whole table, so a new code must be placed here.
 */

const shared = useMockService({ packSize: 16 * 1024, assetSize: 4 * 1024 });

/** An https front of the mock (a private CA: its certificate) and proxies, for the network rows. */
let cert: SelfSignedCert;
let https: FrontServer;
let proxy: ForwardProxy;
let loginProxy: ForwardProxy;
const PROXY_LOGIN = `Basic ${Buffer.from("ci:secret-pw").toString("base64")}`;
beforeAll(async () => {
  const made = makeSelfSignedCert(["IP:127.0.0.1"]);
  if (!made) throw new Error("openssl is needed for the private CA");
  cert = made;
  https = await startFrontServer(shared.mock.baseUrl, () => false, undefined, { tls: cert });
  proxy = await startForwardProxy();
  loginProxy = await startForwardProxy({ requireAuth: PROXY_LOGIN });
});
afterAll(async () => {
  await loginProxy?.close();
  await proxy?.close();
  await https?.close();
});

/** A world whose service is the https front, no proxy from the environment. */
function tlsWorld(extra: Record<string, string | undefined> = {}) {
  return world({ SVC_BASE_URL: https.url, NO_PROXY: "", no_proxy: "", ...extra });
}

interface JsonError {
  code: string;
  hint: string | null;
  http_status: number | null;
}

/** Runs `svc-dl --json ...argv`; asserts it failed with `code` and a hint; returns the hint. */
async function hintOf(argv: string[], opts: RunCliOptions, code: ErrorCode): Promise<string> {
  const r = await runCli(["--json", ...argv], opts);
  const last = r.stderr.trim().split("\n").at(-1) ?? "";
  const error = (JSON.parse(last) as { error: JsonError }).error;
  expect([error.code, r.code === 0]).toEqual([code, false]);
  expect(typeof error.hint).toBe("string");
  return error.hint ?? "";
}

/** As {@link hintOf} without `--json` (for a case `--json` changes): the `hint:` line. */
async function humanHintOf(argv: string[], opts: RunCliOptions, code: ErrorCode): Promise<string> {
  const r = await runCli(argv, opts);
  expect([r.stderr.includes(`(code ${code}`), r.code === 0]).toEqual([true, false]);
  return /^hint: (.*)$/m.exec(r.stderr)?.[1] ?? "";
}

/** Runs svc-dl and asserts exit 0 (the hint was followed). */
async function succeeds(argv: string[], opts: RunCliOptions): Promise<string> {
  const r = await runCli(argv, opts);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

/** The argv of the first `svc-dl …` command a hint quotes. */
function quoted(hint: string): string[] {
  const snippet = /`svc-dl ([^`]+)`/.exec(hint)?.[1];
  expect(snippet, hint).toBeDefined();
  return (snippet ?? "").split(" ");
}

/** The world of one case: a config dir kept across its runs, the mock's address and key. */
function world(extra: Record<string, string | undefined> = {}) {
  const env = { ...shared.env(), SVC_DL_CONFIG_DIR: tempConfigDir(), ...extra };
  return { env };
}

/** Hint "`svc-dl packs list` shows the packs you own": a slug from that list downloads. */
async function followPacksList(hint: string, opts: RunCliOptions): Promise<void> {
  expect(quoted(hint)).toEqual(["packs", "list"]);
  const packs = JSON.parse(await succeeds(["--json", "packs", "list"], opts)) as { slug: string }[];
  const slug = packs[0]?.slug ?? "";
  await succeeds(["pack", "get", slug, "-o", `${tempDir()}/`], opts);
}

/** Codes a user can fix: trigger, follow the hint, see the outcome change. */
const FIXABLE: Partial<Record<ErrorCode, () => Promise<void>>> = {
  no_space: async () => {
    // "Free some disk space and run the same command again; the partial data is kept."
    const { env } = world();
    const fs = mountTmpfs("8k");
    const dir = fs ? join(fs.dir, "assets") : tempDir();
    if (fs) mkdirSync(dir);
    const argv = ["--json", "pack", "get", "low-poly-forest", "-o", `${dir}/`];
    try {
      // a full disk: a tiny tmpfs, or (where mounting is not allowed) injected ENOSPC
      const full = fs
        ? await runCli(argv, { env })
        : await spawnCli(argv, {
            env: { ...env, NODE_OPTIONS: ENOSPC_PRELOAD, RELIABILITY_ENOSPC_AFTER: "8192" },
          });
      const error = JSON.parse(full.stderr.trim().split("\n").at(-1) ?? "").error as JsonError;
      expect([error.code, full.code]).toEqual(["no_space", 8]);
      expect(error.hint).toContain("Free some disk space and run the same command again");
      if (fs) expect(fs.remount("size=4m")).toBe(true); // space freed
      const doc = JSON.parse(await succeeds(argv, { env })) as { status: string; bytes: number };
      expect(doc.bytes).toBe(16 * 1024);
    } finally {
      fs?.unmount();
    }
  },
  usage_error: async () => {
    const hint = await hintOf(["pack", "get"], world(), "usage_error");
    const r = await runCli(quoted(hint), world());
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Examples:");
  },
  no_base_url: async () => {
    const { env } = world({ SVC_BASE_URL: undefined });
    const hint = await hintOf(["whoami"], { env }, "no_base_url");
    await succeeds([...quoted(hint).slice(0, -1), shared.mock.baseUrl], { env });
    await succeeds(["whoami"], { env });
  },
  no_api_key: async () => {
    const { env } = world({ SVC_API_KEY: undefined });
    const hint = await hintOf(["whoami"], { env }, "no_api_key");
    expect(quoted(hint)).toEqual(["auth", "login"]);
    await succeeds(["auth", "login", "--with-key"], { env, input: shared.mock.apiKey });
    await succeeds(["whoami"], { env });
  },
  invalid_api_key: async () => {
    const { env } = world({ SVC_API_KEY: `svc_live_${"x".repeat(32)}` });
    const hint = await hintOf(["whoami"], { env }, "invalid_api_key");
    // the key came from SVC_API_KEY: the hint says so and names the way out
    expect(hint).toContain("SVC_API_KEY");
    expect(quoted(hint)).toEqual(["auth", "login"]);
    const unset = { ...env, SVC_API_KEY: undefined };
    await succeeds(["auth", "login", "--with-key"], { env: unset, input: shared.mock.apiKey });
    await succeeds(["whoami"], { env: unset });
  },
  route_not_found: async () => {
    const { env } = world({ SVC_BASE_URL: `${shared.mock.baseUrl}/store` });
    const hint = await hintOf(["packs", "list"], { env }, "route_not_found");
    const origin = /perhaps (\S+) without the path/.exec(hint)?.[1] ?? "";
    expect(origin).toBe(new URL(shared.mock.baseUrl).origin);
    await succeeds(["packs", "list"], { env: { ...env, SVC_BASE_URL: origin } });
  },
  not_tls: async () => {
    const { env } = world({ SVC_BASE_URL: shared.mock.baseUrl.replace(/^http:/, "https:") });
    const hint = await hintOf(["whoami"], { env }, "not_tls");
    expect(hint).toContain("http:// for a service on this machine");
    await succeeds(["whoami"], { env: { ...env, SVC_BASE_URL: shared.mock.baseUrl } });
  },
  file_exists: async () => {
    const opts = world();
    const dir = tempDir();
    writeFileSync(join(dir, "low-poly-forest.zip"), "a file of the user's");
    const argv = ["pack", "get", "low-poly-forest", "-o", `${dir}/`];
    const hint = await hintOf(argv, opts, "file_exists");
    expect(hint).toContain("--force");
    await succeeds([...argv, "--force"], opts);
    expect(readFileSync(join(dir, "low-poly-forest.zip")).subarray(0, 2).toString()).toBe("PK");
  },
  binary_to_terminal: async () => {
    const opts = { ...world(), stdoutIsTTY: true };
    // with --json, `-o -` is refused before (the document needs a file): a terminal user's run
    const hint = await humanHintOf(
      ["asset", "get", "free-sample-cube", "-o", "-"],
      opts,
      "binary_to_terminal",
    );
    expect(hint).toContain("-o PATH");
    await succeeds(["asset", "get", "free-sample-cube", "-o", `${tempDir()}/`], opts);
  },
  invalid_slug: async () => {
    const opts = world();
    await followPacksList(await hintOf(["pack", "get", "forest/pack"], opts, "invalid_slug"), opts);
  },
  not_found: async () => {
    const opts = world();
    await followPacksList(await hintOf(["pack", "get", "no-such-pack"], opts, "not_found"), opts);
  },
  file_unavailable: async () => {
    const opts = world();
    const argv = ["pack", "get", "sci-fi-props", "-o", `${tempDir()}/`];
    const hint = await hintOf([...argv, "--edition", "authoring"], opts, "file_unavailable");
    expect(hint).toContain("try without --edition");
    await succeeds(argv, opts);
  },
  unknown_config_key: async () => {
    const opts = world();
    const hint = await hintOf(["config", "set", "colour", "red"], opts, "unknown_config_key");
    // the hint lists the settable keys
    expect(hint).toContain("base-url");
    await succeeds(["config", "set", "base-url", shared.mock.baseUrl], opts);
  },
  rate_limited: async () => {
    const opts = world();
    const argv = ["pack", "get", "low-poly-forest", "-o", `${tempDir()}/`];
    shared.mock.set({ faults: { rateLimited: { count: 1, retryAfter: 400 } } });
    const hint = await hintOf(argv, opts, "rate_limited");
    expect(hint).toContain("raise --max-wait");
    shared.mock.set({ faults: { rateLimited: { count: 1, retryAfter: 400 } } });
    await succeeds(["--max-wait", "600", ...argv], opts);
  },
  deadline_reached: async () => {
    const opts = world();
    const dir = tempDir();
    shared.mock.set({ faults: { rateLimited: { count: 1, retryAfter: 120 } } });
    const hint = await hintOf(
      ["--max-duration", "60s", "packs", "sync", dir],
      opts,
      "deadline_reached",
    );
    expect(hint).toContain("raise --max-duration");
    shared.mock.set({ faults: { rateLimited: { count: 1, retryAfter: 120 } } });
    await succeeds(["--max-duration", "10m", "packs", "sync", dir], opts);
  },
  invalid_limit_rate: async () => {
    const opts = world();
    const hint = await hintOf(["--limit-rate", "fast", "whoami"], opts, "invalid_limit_rate");
    const example = /curl: (\S+),/.exec(hint)?.[1] ?? "";
    expect(example).toBe("500K");
    await succeeds(["--limit-rate", example, "whoami"], opts);
  },
  invalid_max_duration: async () => {
    const opts = world();
    const hint = await hintOf(["--max-duration", "soon", "whoami"], opts, "invalid_max_duration");
    const example = /like (\S+),/.exec(hint)?.[1] ?? "";
    expect(example).toBe("90s");
    await succeeds(["--max-duration", example, "whoami"], opts);
  },
  foreign_cache_dir: async () => {
    const cache = tempDir();
    writeFileSync(join(cache, "notes.txt"), "not svc-dl's");
    const opts = world({ SVC_DL_CACHE_DIR: cache });
    const hint = await hintOf(["cache", "clean"], opts, "foreign_cache_dir");
    expect(hint).toContain("point it at a new or empty directory");
    const fresh = join(tempDir(), "cache");
    await succeeds(["cache", "clean"], { env: { ...opts.env, SVC_DL_CACHE_DIR: fresh } });
    expect(existsSync(join(cache, "notes.txt"))).toBe(true);
  },
  dir_not_found: async () => {
    const opts = world();
    const hint = await hintOf(["verify", join(tempDir(), "typo")], opts, "dir_not_found");
    expect(quoted(hint)[0]).toBe("verify");
    await succeeds(["verify", tempDir()], opts);
  },
  invalid_base_url: async () => {
    const host = new URL(shared.mock.baseUrl).host;
    const { env } = world({ SVC_BASE_URL: host });
    const hint = await hintOf(["whoami"], { env }, "invalid_base_url");
    expect(hint).toContain("with its scheme");
    await succeeds(["whoami"], { env: { ...env, SVC_BASE_URL: `http://${host}` } });
  },
  invalid_api_path: async () => {
    const opts = world();
    const hint = await hintOf(["api", "/api/v2/me"], opts, "invalid_api_path");
    await succeeds(quoted(hint), opts);
  },
  manifest_missing: async () => {
    const project = tempDir();
    const opts = { ...world(), cwd: project };
    const hint = await hintOf(["install"], opts, "manifest_missing");
    expect(hint).toContain("--manifest FILE");
    const manifest = join(tempDir(), "assets.json");
    writeFileSync(manifest, JSON.stringify({ dir: "vendor", assets: ["free-sample-cube"] }));
    await succeeds(["install", "--manifest", manifest], opts);
  },
  invalid_manifest: async () => {
    const project = tempDir();
    const opts = { ...world(), cwd: project };
    writeFileSync(
      join(project, "svc-dl.json"),
      JSON.stringify({ dir: "vendor", packs: ["low-poly-forest"], x: 1 }),
    );
    const hint = await hintOf(["install"], opts, "invalid_manifest");
    // the example in the hint is a manifest install accepts (its slugs are the contract's)
    const example = /e\.g\. (\{.*\});/.exec(hint)?.[1] ?? "";
    writeFileSync(join(project, "svc-dl.json"), example);
    const r = await runCli(["--json", "install"], opts);
    expect(r.stderr).not.toContain("invalid_manifest");
    writeFileSync(
      join(project, "svc-dl.json"),
      JSON.stringify({ dir: "vendor", packs: ["low-poly-forest"] }),
    );
    await succeeds(["install"], opts);
  },
  invalid_lock: async () => {
    const project = tempDir();
    const opts = { ...world(), cwd: project };
    writeFileSync(
      join(project, "svc-dl.json"),
      JSON.stringify({ dir: "vendor", assets: ["free-sample-cube"] }),
    );
    writeFileSync(join(project, "svc-dl.lock"), "{not json");
    const hint = await hintOf(["install"], opts, "invalid_lock");
    expect(quoted(hint)).toEqual(["install"]);
    rmSync(join(project, "svc-dl.lock"));
    await succeeds(["install"], opts);
  },
  unknown_shell: async () => {
    const opts = world();
    const hint = await hintOf(["completion", "tcsh"], opts, "unknown_shell");
    const shell = /shells: (\w+),/.exec(hint)?.[1] ?? "";
    expect(await succeeds(["completion", shell], opts)).toContain("svc-dl");
  },
  malformed_api_key: async () => {
    const { env } = world({ SVC_API_KEY: "svc_live_not a key!" });
    const hint = await hintOf(["whoami"], { env }, "malformed_api_key");
    expect(hint).toContain("exactly as shown");
    await succeeds(["whoami"], { env: { ...env, SVC_API_KEY: shared.mock.apiKey } });
  },
  no_tty: async () => {
    const { env } = world({ SVC_API_KEY: undefined });
    const hint = await hintOf(["auth", "login"], { env }, "no_tty");
    await succeeds(quoted(hint), { env, input: shared.mock.apiKey });
    await succeeds(["whoami"], { env });
  },
  empty_key: async () => {
    const { env } = world({ SVC_API_KEY: undefined });
    const hint = await hintOf(["auth", "login", "--with-key"], { env, input: "\n" }, "empty_key");
    await succeeds(quoted(hint), { env, input: shared.mock.apiKey });
  },
  invalid_key_input: async () => {
    const { env } = world({ SVC_API_KEY: undefined });
    const two = "x".repeat(70 * 1024);
    const hint = await hintOf(
      ["auth", "login", "--with-key"],
      { env, input: two },
      "invalid_key_input",
    );
    expect(hint).toContain("one key");
    await succeeds(["auth", "login", "--with-key"], { env, input: shared.mock.apiKey });
  },
  no_license_key: async () => {
    const opts = world();
    const argv = ["legacy", "get", "--pack", "low-poly-forest", "-o", `${tempDir()}/`];
    const hint = await hintOf(argv, opts, "no_license_key");
    expect(quoted(hint)).toEqual(["legacy", "get", "--license-key-stdin"]);
    await succeeds([...argv, "--license-key-stdin"], { ...opts, input: shared.mock.licenseKey });
  },
  wrong_key_kind: async () => {
    const opts = world({ SVC_LICENSE_KEY: shared.mock.apiKey });
    const hint = await hintOf(
      ["legacy", "get", "--pack", "low-poly-forest"],
      opts,
      "wrong_key_kind",
    );
    expect(quoted(hint)).toEqual(["pack", "get"]);
    await succeeds(["pack", "get", "low-poly-forest", "-o", `${tempDir()}/`], opts);
  },
  unsafe_config: async () => {
    const { env } = world();
    await succeeds(["config", "set", "base-url", shared.mock.baseUrl], { env });
    chmodSync(env.SVC_DL_CONFIG_DIR, 0o777);
    const hint = await hintOf(["config", "get", "base-url"], { env }, "unsafe_config");
    expect(hint).toContain("chmod 700");
    chmodSync(env.SVC_DL_CONFIG_DIR, 0o700);
    await succeeds(["config", "get", "base-url"], { env });
  },
  unsafe_key_file: async () => {
    // "The key file must be a regular file of your own that only you can read (chmod 600 FILE)"
    const { env } = world();
    const file = join(tempDir(), "svc-api-key");
    writeFileSync(file, env.SVC_API_KEY ?? "");
    chmodSync(file, 0o644);
    const keyless = { ...env, SVC_API_KEY: undefined, SVC_API_KEY_FILE: file };
    const hint = await hintOf(["whoami"], { env: keyless }, "unsafe_key_file");
    expect(hint).toContain("chmod 600");
    chmodSync(file, 0o600);
    await succeeds(["whoami"], { env: keyless });
  },
  unsafe_state_dir: async () => {
    const opts = world();
    const dir = tempDir();
    symlinkSync(tempDir(), join(dir, ".svc-dl"));
    const argv = ["pack", "get", "low-poly-forest", "-o", `${dir}/`];
    const hint = await hintOf(argv, opts, "unsafe_state_dir");
    expect(hint).toContain("move it away");
    rmSync(join(dir, ".svc-dl"));
    await succeeds(argv, opts);
  },
  special_file: async () => {
    const opts = world();
    const argv = ["asset", "get", "free-sample-cube", "-o"];
    const hint = await hintOf([...argv, "/dev/null", "--force"], opts, "special_file");
    expect(hint).toContain("-o -");
    await succeeds([...argv, "-"], opts);
  },
  unsafe_cache_dir: async () => {
    const link = join(tempDir(), "cache");
    symlinkSync(tempDir(), link);
    const opts = world({ SVC_DL_CACHE_DIR: link });
    const hint = await hintOf(["cache", "clean"], opts, "unsafe_cache_dir");
    expect(hint).toContain("SVC_DL_CACHE_DIR");
    const env = { ...opts.env, SVC_DL_CACHE_DIR: join(tempDir(), "cache") };
    await succeeds(["cache", "clean"], { env });
  },
  tls_error: async () => {
    const opts = tlsWorld();
    const hint = await hintOf(["whoami"], opts, "tls_error");
    expect(hint).toContain("--ca-file");
    await succeeds(["--ca-file", cert.caFile, "whoami"], opts);
  },
  invalid_ca_file: async () => {
    const opts = tlsWorld();
    const missing = join(tempDir(), "ca.pem");
    const hint = await hintOf(["--ca-file", missing, "whoami"], opts, "invalid_ca_file");
    expect(hint).toContain("readable PEM file");
    await succeeds(["--ca-file", cert.caFile, "whoami"], opts);
  },
  insecure_base_url: async () => {
    const opts = tlsWorld({ SVC_BASE_URL: "http://assets.example.com", SVC_CA_FILE: cert.caFile });
    const hint = await hintOf(["whoami"], opts, "insecure_base_url");
    // the same address over https (the service here listens on loopback only)
    expect(hint).toContain("https://assets.example.com");
    await succeeds(["whoami"], { env: { ...opts.env, SVC_BASE_URL: https.url } });
  },
  invalid_proxy: async () => {
    const opts = tlsWorld({ SVC_CA_FILE: cert.caFile });
    const hint = await hintOf(["--proxy", "a proxy", "whoami"], opts, "invalid_proxy");
    expect(hint).toContain("http://host:port");
    const before = proxy.connects.length;
    await succeeds(["--proxy", proxy.url, "whoami"], opts);
    expect(proxy.connects.length).toBeGreaterThan(before);
  },
  proxy_error: async () => {
    const opts = tlsWorld({ SVC_CA_FILE: cert.caFile });
    const hint = await hintOf(["--proxy", loginProxy.url, "whoami"], opts, "proxy_error");
    expect(hint).toContain("http://user:password@host:port");
    const withLogin = loginProxy.url.replace("http://", "http://ci:secret-pw@");
    await succeeds(["--proxy", withLogin, "whoami"], { ...opts, secrets: ["secret-pw"] });
  },
  prune_limit: async () => {
    const opts = world();
    const dir = tempDir();
    await succeeds(["packs", "sync", dir], opts);
    // two files recorded for packs the account no longer owns
    const statePath = join(dir, ".svc-dl", "state.json");
    const state = JSON.parse(readFileSync(statePath, "utf8")) as {
      items: Record<string, Record<string, unknown>>;
    };
    const [name, record] = Object.entries(state.items)[0] ?? [];
    for (const gone of ["gone-1", "gone-2"]) {
      writeFileSync(join(dir, `${gone}.zip`), readFileSync(join(dir, name ?? "")));
      state.items[`${gone}.zip`] = {
        ...record,
        slug: gone,
        file: `${gone}.zip`,
        mtime_ms: undefined,
      };
    }
    writeFileSync(statePath, JSON.stringify(state));
    const argv = ["packs", "sync", dir, "--prune"];
    const hint = await hintOf([...argv, "--max-delete", "1"], opts, "prune_limit");
    expect(hint).toContain("--prune --dry-run");
    const listed = await runCli(["--json", ...argv, "--dry-run"], opts);
    const doc = JSON.parse(listed.stdout) as { items: { status: string }[] };
    expect(doc.items.filter((i) => i.status === "would-prune")).toHaveLength(2);
    await succeeds([...argv, "--max-delete", "2"], opts);
    expect(existsSync(join(dir, "gone-1.zip"))).toBe(false);
  },
  license_key_as_api_key: async () => {
    const { env } = world({ SVC_API_KEY: shared.mock.licenseKey });
    const hint = await hintOf(["whoami"], { env }, "license_key_as_api_key");
    expect(quoted(hint)).toEqual(["legacy", "get"]);
    const legacy = { ...env, SVC_API_KEY: undefined, SVC_LICENSE_KEY: shared.mock.licenseKey };
    await succeeds(["legacy", "get", "--pack", "low-poly-forest", "-o", `${tempDir()}/`], {
      env: legacy,
    });
  },
};

/** Codes whose step is walked in another test file (named here). */
const ELSEWHERE: Partial<Record<ErrorCode, string>> = {
  locked:
    "test/outdir/lock.e2e.test.ts and test/install/wait-lock.test.ts: --wait-lock waits, then the run goes on",
  lock_mismatch: "test/install/update.test.ts: the exit-9 hint leads to a lock --frozen accepts",
  usage_error: "test/errors/hint-source.test.ts: -o - with --json, then -o PATH",
  config_invalid: "test/errors/hint-source.test.ts: the hint names the config file",
  unsafe_output_path:
    "test/run/special-outputs.e2e.test.ts: the FIFO at --report moved away, the same sync succeeds",
  offline:
    "test/install/offline.test.ts: after one install without --offline, install --frozen --offline succeeds from the cache",
  keyring_unavailable:
    "test/commands/auth/key-sources.test.ts: with the key in SVC_API_KEY_FILE the same run succeeds",
  invalid_schedule:
    "test/commands/schedule/hints.test.ts: --every as one of the intervals named, the schedule prints",
  unsafe_schedule_argument:
    "test/commands/schedule/hints.test.ts: the value without its control character, the schedule prints",
  foreign_schedule_file:
    "test/commands/schedule/hints.test.ts: the foreign unit moved away, the same --write succeeds",
};

/** Codes whose hint cannot change the outcome from the user's side, and why. */
const CANNOT: Partial<Record<ErrorCode, string>> = {
  internal_error: "the service failed: only running later helps",
  server_error: "the service failed: only running later helps",
  network_error: "the network failed: only running later helps",
  timeout: "the service stopped answering: only running later helps",
  bad_framing: "a server or proxy broke HTTP: reported to the service",
  unexpected_response: "the service broke the spec: reported to the service",
  broken_pagination: "the service's paging is broken: reported to the service",
  bad_redirect: "the service's redirect is broken: reported to the service",
  too_many_redirects: "the service redirects in a loop: reported to the service",
  insecure_redirect: "the service redirects to plain http: reported to the service",
  insecure_url: "the service hands out a plain-http link: reported to the service",
  unsupported_scheme: "the service hands out a link that is not https: reported",
  corrupt_download: "the bytes were damaged on the way: running again is the step",
  unsafe_archive: "the archive itself is unsafe: reported to the service",
  legacy_denied: "the legacy endpoint refused the license key: support decides",
  api_disabled: "the account's API access is off: support decides",
  not_eligible: "the account needs a purchase: made on the service's site",
  blocked: "the account is blocked: support decides",
  not_entitled: "the item is not bought: made on the service's site",
  insufficient_scope: "a new key is created on the service's site",
  revoked_api_key: "a new key is created on the service's site",
  expired_api_key: "a new key is created on the service's site",
  missing_api_key: "the service says no key was sent, which svc-dl never does with a key set",
  range_not_satisfiable: "the service refused a range: running again starts over",
  interrupted: "the user stopped the run: running again resumes",
  aborted: "the library caller aborted: calling again resumes",
  cancelled: "the user cancelled a prompt",
  unexpected: "a bug: --verbose shows details for a report",
  sync_incomplete: "the outcome of items that failed with their own codes (walked above)",
  get_incomplete: "the outcome of items that failed with their own codes (walked above)",
  install_incomplete: "the outcome of items that failed with their own codes (walked above)",
  unknown_command: "no hint: the message itself suggests the nearest command",
};

describe("following the hint changes the outcome", () => {
  for (const [code, walk] of Object.entries(FIXABLE)) {
    it(code, async () => {
      await walk?.();
    });
  }

  it("the files named for codes walked elsewhere exist", () => {
    const files = Object.values(ELSEWHERE).flatMap(
      (why) => why?.match(/test\/\S+\.test\.ts/g) ?? [],
    );
    expect(files.length).toBeGreaterThan(3);
    expect(files.filter((f) => !existsSync(join(process.cwd(), f)))).toEqual([]);
  });

  it("every code of the table is walked, walked elsewhere, or listed with why it cannot be", () => {
    const placed = new Set([
      ...Object.keys(FIXABLE),
      ...Object.keys(ELSEWHERE),
      ...Object.keys(CANNOT),
    ]);
    const unplaced = Object.keys(CODES).filter((code) => !placed.has(code));
    // not yet walked: each needs its own setup (a TLS service, a held lock, a full disk, …)
    expect(unplaced.sort()).toEqual([...NOT_YET].sort());
  });
});

/** Fixable codes without a walk yet (each a missing row above, not a hint that works). */
const NOT_YET: readonly ErrorCode[] = [
  // a host name that does not resolve needs a resolver the test controls
  "dns_error",
  // a failing write, modes (the tests run as root, which modes do not stop)
  "write_failed",
  "permission_denied",
  "config_unreadable",
];
