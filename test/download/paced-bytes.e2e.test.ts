/**
 * cli-contract "Integrity": `--limit-rate` and `--max-duration` change when bytes arrive, never
 * which bytes are kept. Every download here is compared byte for byte with what the mock
 * service serves, over real loopback http and https (a private CA), into a directory and to
 * stdout. The runs use a clock whose waits move time on and return after the event loop has
 * polled the sockets again (never sleeping for real): a paced piece is held across socket
 * reads, as it is with the real clock.
 */
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MockService, startMockService } from "../../src/mock-server/index.js";
import type { Clock } from "../../src/model.js";
import { registerSecret, runCli } from "../helpers/cli.js";
import { testContext } from "../helpers/context.js";
import { envFor, tempDir } from "../helpers/download.js";
import { type FrontServer, startTlsFronts } from "../helpers/front-server.js";
import { makeSelfSignedCert, type SelfSignedCert } from "../helpers/tls.js";

const PACK = "desert-rocks";
const PACK_BYTES = 4 * 1024 * 1024;

let mock: MockService;
let cert: SelfSignedCert;
let api: FrontServer;
let cdn: FrontServer;
let served: Buffer;

beforeAll(async () => {
  const made = makeSelfSignedCert(["IP:127.0.0.1"]);
  if (!made) throw new Error("openssl is needed for the private CA");
  cert = made;
  mock = await startMockService({ quiet: true, packSize: PACK_BYTES });
  registerSecret(mock.apiKey);
  ({ api, cdn } = await startTlsFronts(mock, cert));
  const plain = await runCli(["pack", "get", PACK, "-o", "-"], { env: envFor(mock) });
  expect(plain.code).toBe(0);
  served = plain.stdoutBytes;
}, 90_000); // a private CA and a 4 MiB download: slow on a loaded machine

afterAll(async () => {
  await api?.close();
  await cdn?.close();
  await mock?.close();
});

/** The environment of a run over `protocol`: the mock itself, or its TLS fronts trusted by CA. */
function envOver(protocol: "http" | "https"): { env: Record<string, string>; args: string[] } {
  if (protocol === "http") return { env: envFor(mock), args: [] };
  const caFile = join(tempDir(), "ca.pem");
  writeFileSync(caFile, cert.cert);
  return {
    env: { SVC_BASE_URL: api.url, SVC_API_KEY: mock.apiKey },
    args: ["--ca-file", caFile],
  };
}

/** Where the first byte of `got` differs from the served pack (-1: identical). */
function firstDifference(got: Buffer): number {
  if (got.equals(served)) return -1;
  const n = Math.min(got.length, served.length);
  for (let i = 0; i < n; i++) if (got[i] !== served[i]) return i;
  return n;
}

const sha256 = (b: Buffer): string => createHash("sha256").update(b).digest("hex");

/** One turn of the event loop, I/O poll included (two check phases apart). */
const turn = (): Promise<void> =>
  new Promise((resolve) => setImmediate(() => setImmediate(resolve)));

/** A clock whose sleeps move time on and end one event-loop turn later (sockets are read). */
function turningClock(): Clock {
  let now = Date.now();
  return {
    now: () => now,
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      now += ms;
      await turn();
    },
  };
}

/** Runs the CLI in-process on {@link turningClock}: exit code and stdout's bytes. */
async function runPaced(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: Buffer; stdoutText: string; stderr: string }> {
  const { main } = await import("../../src/cli.js");
  const t = testContext({ env });
  const code = await main(args, { ...t.ctx, clock: turningClock() });
  return { code, stdout: t.stdout.bytes, stdoutText: t.stdout.text, stderr: t.stderr.text };
}

describe("paced downloads keep exactly the served bytes", () => {
  it("the served pack is the one the mock describes", async () => {
    const info = await mock.fileInfo({ kind: "pack", slug: PACK });
    expect(served.length).toBe(PACK_BYTES);
    expect(sha256(served)).toBe(info.sha256);
  });

  for (const protocol of ["http", "https"] as const) {
    for (const rate of ["1M", "300K"]) {
      it(`pack get -o DIR --limit-rate ${rate} over ${protocol}: the file and its record are the served bytes`, async () => {
        const { env, args } = envOver(protocol);
        const dir = tempDir();
        const r = await runPaced(
          ["pack", "get", PACK, "-o", dir, "--limit-rate", rate, "--json", ...args],
          env,
        );
        expect(r.code, r.stderr).toBe(0);
        const file = readFileSync(join(dir, `${PACK}.zip`));
        expect(firstDifference(file)).toBe(-1);
        expect(r.stdoutText).toContain(sha256(served));
      });
    }

    it(`pack get -o - --limit-rate 1M over ${protocol}: stdout is the served bytes`, async () => {
      const { env, args } = envOver(protocol);
      const r = await runPaced(
        ["pack", "get", PACK, "-o", "-", "--limit-rate", "1M", ...args],
        env,
      );
      expect(r.code, r.stderr).toBe(0);
      expect(firstDifference(r.stdout)).toBe(-1);
    });
  }
});
