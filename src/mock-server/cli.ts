/**
 * `svc-dl-mock` command line: parses flags, starts the mock service, prints
 * exactly two lines to stdout (`SVC_BASE_URL=…`, `SVC_API_KEY=…`), everything
 * else to stderr, and serves until SIGINT/SIGTERM (then exits 0).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { DEFAULT_FIXTURE_URL, loadFixtureFile } from "./fixture.js";
import { startMockService } from "./server.js";
import type { LimitConfig, MockServiceOptions, PolicyName } from "./service-types.js";

/** Absolute path of the shipped default fixture, as printed (it works from any directory). */
const DEFAULT_FIXTURE_PATH = fileURLToPath(DEFAULT_FIXTURE_URL);

/** Help text of `svc-dl-mock --help`. */
export const HELP = `svc-dl-mock: a local mock of the asset download service (API + CDN on 127.0.0.1)

Usage: svc-dl-mock [options]

Prints two lines to stdout, then serves until Ctrl-C (SIGINT) or SIGTERM:
  SVC_BASE_URL=http://127.0.0.1:PORT
  SVC_API_KEY=svc_live_…

Options:
  --port N              API origin port (default: a free port)
  --cdn-port N          CDN origin port (default: a free port)
  --fixture FILE        JSON fixture (default: the shipped one,
                        ${DEFAULT_FIXTURE_PATH})
  --read-quota N        "read" requests per window per API key (default 120)
  --download-quota N    "download" requests per window per API key (default 30)
  --public-quota N      "public" catalog requests per window per IP (default 120)
  --auth-quota N        failed authentication attempts per window per IP (default 20)
  --window SECONDS      window length of every policy (default 60)
  --pack-size BYTES     size of every pack ZIP (both editions)
  --asset-size BYTES    size of every asset GLB
  --extra-packs N       add N generated packs owned by the demo account
  --signed-url-ttl S    lifetime of signed CDN URLs in seconds (default 300)
  --no-if-none-match    answer If-None-Match with a normal 200 instead of 304
  --log                 one stderr line per request
  -V, --version         print the version (the svc-dl package's) and exit
  -h, --help            show this help

Examples:
  svc-dl-mock --window 10 --download-quota 5 > mock.env &
  sleep 1; set -a; . ./mock.env; set +a      # exports SVC_BASE_URL and SVC_API_KEY
  svc-dl whoami
  svc-dl-mock --port 8787 --pack-size 1073741824 --log   # a 1 GiB pack per download
`;

function int(name: string, v: string | undefined, min = 0): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < min)
    throw new Error(`--${name} needs an integer ≥ ${min}, got "${v}"`);
  return Number(v);
}

/** What the command line asks for: help, the version, or a service with these options. */
export interface ParsedCli {
  help: boolean;
  version: boolean;
  options: MockServiceOptions;
  /** Absolute path of the fixture served (the shipped one unless `--fixture`). */
  fixturePath: string;
}

/** The version of the package the mock ships in (its package.json, two levels above this module). */
export function mockVersion(): string {
  const pkg: unknown = JSON.parse(
    readFileSync(new URL("../../package.json", import.meta.url), "utf8"),
  );
  const version = (pkg as { version?: unknown }).version;
  return typeof version === "string" ? version : "unknown";
}

/** Build service options from argv (without `node` and the script). Throws on bad flags. */
export function parseCliArgs(argv: string[]): ParsedCli {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      port: { type: "string" },
      "cdn-port": { type: "string" },
      fixture: { type: "string" },
      "read-quota": { type: "string" },
      "download-quota": { type: "string" },
      "public-quota": { type: "string" },
      "auth-quota": { type: "string" },
      window: { type: "string" },
      "pack-size": { type: "string" },
      "asset-size": { type: "string" },
      "extra-packs": { type: "string" },
      "signed-url-ttl": { type: "string" },
      "no-if-none-match": { type: "boolean" },
      log: { type: "boolean" },
      help: { type: "boolean", short: "h" },
      version: { type: "boolean", short: "V" },
    },
  });
  const fixturePath = values.fixture === undefined ? DEFAULT_FIXTURE_PATH : resolve(values.fixture);
  if (values.help === true || values.version === true) {
    return {
      help: values.help === true,
      version: values.version === true,
      options: {},
      fixturePath,
    };
  }
  const options: MockServiceOptions = { quiet: false };
  const port = int("port", values.port);
  if (port !== undefined) options.port = port;
  const cdnPort = int("cdn-port", values["cdn-port"]);
  if (cdnPort !== undefined) options.cdnPort = cdnPort;
  if (values.fixture !== undefined) options.fixture = loadFixtureFile(fixturePath);
  const window = int("window", values.window, 1) ?? 60;
  const limits: Partial<Record<PolicyName, LimitConfig>> = {};
  const quotas: Record<PolicyName, string> = {
    read: "read-quota",
    download: "download-quota",
    public: "public-quota",
    auth: "auth-quota",
  };
  const defaults: Record<PolicyName, number> = { read: 120, download: 30, public: 120, auth: 20 };
  for (const [policy, flag] of Object.entries(quotas) as [PolicyName, string][]) {
    const raw = (values as Record<string, string | boolean | undefined>)[flag];
    const q = int(flag, typeof raw === "string" ? raw : undefined);
    limits[policy] = { quota: q ?? defaults[policy], windowSeconds: window };
  }
  options.limits = limits;
  const packSize = int("pack-size", values["pack-size"], 1);
  if (packSize !== undefined) options.packSize = packSize;
  const assetSize = int("asset-size", values["asset-size"], 1);
  if (assetSize !== undefined) options.assetSize = assetSize;
  const extra = int("extra-packs", values["extra-packs"]);
  if (extra !== undefined) options.extraPacks = extra;
  const ttl = int("signed-url-ttl", values["signed-url-ttl"]);
  if (ttl !== undefined) options.signedUrlTtlSeconds = ttl;
  if (values["no-if-none-match"] === true) options.ifNoneMatch = false;
  if (values.log === true) options.log = true;
  return { help: false, version: false, options, fixturePath };
}

/**
 * Run the CLI. Resolves with the exit code once the service has stopped
 * (0 after SIGINT/SIGTERM, 2 for bad flags, 1 when it cannot start).
 */
export async function runCli(
  argv: string[],
  out: NodeJS.WritableStream = process.stdout,
  err: NodeJS.WritableStream = process.stderr,
): Promise<number> {
  let parsed: ParsedCli;
  try {
    parsed = parseCliArgs(argv);
  } catch (e) {
    err.write(`svc-dl-mock: ${(e as Error).message}\nRun svc-dl-mock --help for usage.\n`);
    return 2;
  }
  if (parsed.help) {
    out.write(HELP);
    return 0;
  }
  if (parsed.version) {
    out.write(`${mockVersion()}\n`);
    return 0;
  }
  let mock: Awaited<ReturnType<typeof startMockService>>;
  try {
    mock = await startMockService(parsed.options);
  } catch (e) {
    err.write(`svc-dl-mock: cannot start: ${(e as Error).message}\n`);
    return 1;
  }
  out.write(`SVC_BASE_URL=${mock.baseUrl}\nSVC_API_KEY=${mock.apiKey}\n`);
  err.write(
    `svc-dl-mock: API ${mock.baseUrl}/api/v1, CDN ${mock.cdnUrl}\n` +
      `svc-dl-mock: demo license key SVC_LICENSE_KEY=${mock.licenseKey}\n` +
      `svc-dl-mock: other keys: ${Object.keys(mock.keys).join(", ")} (see ${parsed.fixturePath})\n` +
      `svc-dl-mock: serving; press Ctrl-C to stop\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = (sig: string) => {
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
      err.write(`svc-dl-mock: ${sig}, shutting down\n`);
      resolve();
    };
    const onInt = () => stop("SIGINT");
    const onTerm = () => stop("SIGTERM");
    process.on("SIGINT", onInt);
    process.on("SIGTERM", onTerm);
  });
  await mock.close();
  return 0;
}
