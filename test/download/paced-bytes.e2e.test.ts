/**
 * cli-contract "Integrity": `--limit-rate` and `--max-duration` change when bytes arrive, never
 * which bytes are kept. Every download here is compared byte for byte with what the mock
 * service serves, over real loopback http and https (a private CA), into a directory and to
 * stdout. A paced wait that ends the run after the whole body arrived ends it as the contract
 * says, never waiting for a body that has already ended. The runs use a clock whose waits move time on and return after the event loop has
 * polled the sockets again (never sleeping for real): a paced piece is held across socket
 * reads, as it is with the real clock.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Faults, type MockService, startMockService } from "../../src/mock-server/index.js";
import { registerSecret, runCli } from "../helpers/cli.js";
import { envFor, tempDir } from "../helpers/download.js";
import { type FrontServer, startTlsFronts } from "../helpers/front-server.js";
import { startForwardProxy } from "../helpers/proxy.js";
import { makeSelfSignedCert, type SelfSignedCert } from "../helpers/tls.js";
import { turningClock } from "../helpers/turning-clock.js";

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
  const many = { quota: 100_000, windowSeconds: 60 }; // dozens of downloads in this file
  mock = await startMockService({
    quiet: true,
    packSize: PACK_BYTES,
    limits: { download: many, read: many },
  });
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

/** Runs the CLI in-process on a {@link turningClock}, with `stdout` as its stdout when given. */
async function runOnTurningClock(
  args: string[],
  env: Record<string, string>,
  stdout?: Writable,
): Promise<{ code: number; stdout: Buffer; stdoutText: string; stderr: string }> {
  const r = await runCli(args, { env, waits: turningClock(), ...(stdout ? { stdout } : {}) });
  return { code: r.code, stdout: r.stdoutBytes, stdoutText: r.stdout, stderr: r.stderr };
}

/** Where the first byte of `got` differs from the served pack (-1: identical). */
function firstDifference(got: Buffer): number {
  if (got.equals(served)) return -1;
  const n = Math.min(got.length, served.length);
  for (let i = 0; i < n; i++) if (got[i] !== served[i]) return i;
  return n;
}

const sha256 = (b: Buffer): string => createHash("sha256").update(b).digest("hex");

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
        const r = await runOnTurningClock(
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
      const r = await runOnTurningClock(
        ["pack", "get", PACK, "-o", "-", "--limit-rate", "1M", ...args],
        env,
      );
      expect(r.code, r.stderr).toBe(0);
      expect(firstDifference(r.stdout)).toBe(-1);
    });
  }
});

describe("every path where a borrowed buffer could be held keeps the served bytes", () => {
  beforeEach(() => mock.set({ faults: {} }));
  afterAll(() => mock.set({ faults: {} }));

  const cases: [string, Faults][] = [
    [
      "a body cut part-way and resumed with Range",
      { dropAfterBytes: { bytes: 1_500_001, count: 1 } },
    ],
    ["a 503 from the CDN, retried", { serverError: { count: 1, origin: "cdn", status: 503 } }],
    ["odd write sizes from the CDN", { chunkSizes: [1, 4093, 65_537] }],
    [
      "a cut body whose resume is refused (416), started over",
      { dropAfterBytes: { bytes: 700_001, count: 1 }, rangeNotSatisfiable: { count: 1 } },
    ],
  ];
  for (const protocol of ["http", "https"] as const) {
    for (const rate of [undefined, "1M"]) {
      for (const [what, faults] of cases) {
        it(`${what} over ${protocol}, ${rate ? `--limit-rate ${rate}` : "unpaced"}`, async () => {
          mock.set({ faults });
          const { env, args } = envOver(protocol);
          const dir = tempDir();
          const limit = rate ? ["--limit-rate", rate] : [];
          const r = await runOnTurningClock(
            ["pack", "get", PACK, "-o", dir, "--json", ...limit, ...args],
            env,
          );
          expect(r.code, r.stderr).toBe(0);
          expect(firstDifference(readFileSync(join(dir, `${PACK}.zip`)))).toBe(-1);
          expect(r.stdoutText).toContain(sha256(served));
        });
      }
    }
  }

  it("through a proxy (undici's body path instead of the fast path), --limit-rate 1M", async () => {
    const proxy = await startForwardProxy();
    try {
      const dir = tempDir();
      const r = await runOnTurningClock(
        ["pack", "get", PACK, "-o", dir, "--json", "--limit-rate", "1M"],
        { ...envFor(mock), HTTP_PROXY: proxy.url },
      );
      expect(r.code, r.stderr).toBe(0);
      expect(proxy.connects).toContain(new URL(mock.cdnUrl).host); // the CDN went through it
      expect(firstDifference(readFileSync(join(dir, `${PACK}.zip`)))).toBe(-1);
      expect(r.stdoutText).toContain(sha256(served));
    } finally {
      await proxy.close();
    }
  });
});

/**
 * A slow stdout that keeps every chunk it is given (as a pipe's consumer may): a small buffer,
 * each write acknowledged one event-loop turn later, so svc-dl waits for it to drain.
 */
class SlowKeepingStdout extends Writable {
  readonly kept: Buffer[] = [];
  drains = 0;
  constructor() {
    super({ highWaterMark: 16 * 1024 });
    this.on("drain", () => {
      this.drains += 1;
    });
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null) => void): void {
    this.kept.push(chunk);
    setImmediate(() => setImmediate(() => done()));
  }
}

describe("-o - into a slow consumer that keeps what it is given", () => {
  for (const protocol of ["http", "https"] as const) {
    for (const rate of [undefined, "1M"]) {
      it(`over ${protocol}, ${rate ? `--limit-rate ${rate}` : "unpaced"}: stdout is the served bytes`, async () => {
        const { env, args } = envOver(protocol);
        const out = new SlowKeepingStdout();
        const limit = rate ? ["--limit-rate", rate] : [];
        const r = await runOnTurningClock(
          ["pack", "get", PACK, "-o", "-", ...limit, ...args],
          env,
          out,
        );
        expect(r.code, r.stderr).toBe(0);
        expect(out.drains).toBeGreaterThan(0); // the consumer did hold svc-dl back
        expect(firstDifference(Buffer.concat(out.kept))).toBe(-1);
      });
    }
  }
});

/** A stdout that keeps what it is given and tells `onFirst` of the first write. */
class FirstWriteStdout extends Writable {
  readonly kept: Buffer[] = [];
  constructor(private readonly onFirst: () => void) {
    super();
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null) => void): void {
    this.kept.push(Buffer.from(chunk));
    if (this.kept.length === 1) this.onFirst();
    done();
  }
}

describe("a paced wait that ends the run after a small body arrived whole with its head", () => {
  /** Small enough to come in the socket's first read; 1.5 s of waits at 2K. */
  const SMALL = 3_000;
  let small: Buffer;
  beforeEach(async () => {
    mock.set({ faults: {}, packSize: SMALL });
    small = (await runCli(["pack", "get", PACK, "-o", "-"], { env: envFor(mock) })).stdoutBytes;
    expect(small.length).toBe(SMALL);
  });
  afterEach(() => mock.set({ packSize: PACK_BYTES }));
  const isPrefix = (got: Buffer): boolean => small.subarray(0, got.length).equals(got);

  for (const protocol of ["http", "https"] as const) {
    it(`--max-duration reached while --limit-rate holds the rest, over ${protocol}: exit 10, lock released`, async () => {
      const { env, args } = envOver(protocol);
      const dir = tempDir();
      const r = await runOnTurningClock(
        [
          "pack",
          "get",
          PACK,
          "-o",
          `${dir}/`,
          "--limit-rate",
          "2K",
          "--max-duration",
          "1s",
          ...args,
        ],
        { ...env, SVC_DL_CACHE_DIR: tempDir() },
      );
      expect(r.code, r.stderr).toBe(10);
      expect(r.stderr).toContain("deadline_reached");
      expect(existsSync(join(dir, `${PACK}.zip`))).toBe(false);
      const names = readdirSync(join(dir, ".svc-dl"));
      expect(names).not.toContain("lock-owner.json");
      for (const part of names.filter((n) => n.endsWith(".part"))) {
        const kept = readFileSync(join(dir, ".svc-dl", part));
        expect(kept.length).toBeLessThan(SMALL);
        expect(isPrefix(kept)).toBe(true);
      }
    });

    it(`Ctrl-C at the first byte of -o - while --limit-rate holds the rest, over ${protocol}: exit 130`, async () => {
      const { env, args } = envOver(protocol);
      let interrupt = (): void => undefined;
      const out = new FirstWriteStdout(() => interrupt());
      const r = await runCli(["pack", "get", PACK, "-o", "-", "--limit-rate", "2K", ...args], {
        env,
        waits: turningClock(),
        stdout: out,
        onStart: (fn) => {
          interrupt = fn;
        },
      });
      expect(r.code, r.stderr).toBe(130);
      const kept = Buffer.concat(out.kept);
      expect(kept.length).toBeGreaterThan(0);
      expect(kept.length).toBeLessThan(SMALL);
      expect(isPrefix(kept)).toBe(true);
    });
  }
});
