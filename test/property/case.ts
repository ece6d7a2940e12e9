import fc from "fast-check";

// One drawn combination of the features that change when and how bytes arrive (cli-contract
// "Integrity": `--limit-rate`, `--max-duration`, `-o -`, `--extract`, proxies, TLS, resume and
// retries change when bytes arrive, never which bytes are kept), and the fast-check generator
// that draws it.

/** The command of a case and the items it asks for. */
export type CommandKind = "pack" | "packs" | "asset" | "assets" | "legacy" | "sync" | "install";

/** A fault of the mock service (docs/mock-service.md, "Fault injection"). */
export type FaultCase =
  | { kind: "none" }
  /** The first `count` bodies cut after `at` × size bytes (`clean`: FIN after a short body). */
  | { kind: "cut"; at: number; count: 1 | 2; clean: boolean }
  /** Every body cut after `at` × size bytes: the run fails, the re-run without it succeeds. */
  | { kind: "cut-forever"; at: number }
  /** The first `count` requests to `origin` answer `status`. */
  | { kind: "5xx"; origin: "api" | "cdn"; status: 500 | 502 | 503 | 504; count: 1 | 2 }
  /** Every CDN request answers 503: the run fails after its tries. */
  | { kind: "5xx-forever" }
  /** One body cut after `at` × size bytes, then the resume's Range answered 416. */
  | { kind: "416-on-resume"; at: number }
  /** The first `count` CDN requests answer as for an expired signed URL. */
  | { kind: "expired"; count: 1 | 2; status: 403 | 410 };

/** An interruption of the first run: none, Ctrl-C (in-process abort) or SIGKILL (child). */
export type InterruptionCase =
  | { kind: "none" }
  /** At `at` × size bytes of partial data (or of stdout with `-o -`), or once the lock is taken. */
  | { kind: "sigint" | "sigkill"; at: number; atLock: boolean };

/** One drawn case. */
export interface Case {
  command: CommandKind;
  /** `assets`: also ask for an asset the account may not download (the item fails). */
  denied: boolean;
  /** `-o -` (one pack, one asset or `legacy get` only), else files in a directory. */
  stdout: boolean;
  /** `--extract` (`pack get`, `packs sync` and `install` into files only). */
  extract: boolean;
  /** `--limit-rate` value and how it is given, or none. */
  limitRate: { rate: "4K" | "64K" | "700K" | "3M"; via: "flag" | "env" } | undefined;
  /**
   * Every request through the forward proxy on loopback, named by `--proxy` or by
   * `HTTP_PROXY`/`HTTPS_PROXY` (the CDN body then goes through undici, not the fast path), or
   * none.
   */
  proxy: { via: "flag" | "env" } | undefined;
  /**
   * `--max-duration` in seconds of the run's clock (a rate-limit wait or a retry backoff moves
   * it on), or none: the run may end with exit 10, its partial data kept for the re-run.
   */
  maxDuration: 1 | 3 | undefined;
  /** The run's clock: waits yield once and move manual time on, or real waits. */
  realClock: boolean;
  protocol: "http" | "https";
  /** Bytes of every pack file and every asset file the mock serves. */
  packSize: number;
  assetSize: number;
  /** The mock's body write sizes, in turn (undefined: its default). */
  chunkSizes: number[] | undefined;
  /** The mock's pace: seconds per pack-sized body (undefined: as fast as it can). */
  serveSeconds: number | undefined;
  fault: FaultCase;
  interruption: InterruptionCase;
  /**
   * Every item the case asks for gets a new version (new bytes, new ETag) before the re-run of
   * a run that was cut short: partial data of the old version must never be spliced onto the
   * new one, and every file ends as the new version (not `install`, whose lock pins versions;
   * `packs sync` without `--refresh` keeps a pack it had completed, as the contract says).
   */
  republish: boolean;
  /** `packs sync --refresh`: every complete pack re-validated with a conditional request. */
  refresh: boolean;
  /**
   * At the end, a byte of the first item's file flipped at this fraction of it (size and
   * modification time kept), then `verify` must call it changed and `verify --repair` restore
   * it (files in a directory only), or none.
   */
  damage: number | undefined;
}

const PACK_SIZES = [3_000, 65_535, 65_537, 200_003, 1_048_579];
const ASSET_SIZES = [1_200, 65_536, 300_001];
const CHUNKS: number[][] = [[1], [1, 7], [4093], [1, 4093, 65_537], [65_553], [200_003]];
/** Largest file served in writes of a few bytes each (they cost a syscall per write). */
const SMALL_WRITES_MAX = 65_537;
/** Largest pack for the commands that fetch several packs. */
const MULTI_PACK_MAX = 200_003;

/**
 * A point in a transfer, as a fraction of its bytes in steps of 1/10,000. Drawn as an integer:
 * fast-check draws a double by its bit pattern, so nearly every `fc.double` in [0, 1] is within
 * a hair of 0 or of 1, and cuts and interruptions all but never fell mid-transfer.
 */
const fraction = fc.integer({ min: 0, max: 10_000 }).map((n) => n / 10_000);

const faultArb: fc.Arbitrary<FaultCase> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: "none" as const }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("cut" as const),
      at: fraction,
      count: fc.constantFrom(1 as const, 2 as const),
      clean: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("cut-forever" as const), at: fraction }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("5xx" as const),
      origin: fc.constantFrom("api" as const, "cdn" as const),
      status: fc.constantFrom(500 as const, 502 as const, 503 as const, 504 as const),
      count: fc.constantFrom(1 as const, 2 as const),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "5xx-forever" as const }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("416-on-resume" as const), at: fraction }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("expired" as const),
      count: fc.constantFrom(1 as const, 2 as const),
      status: fc.constantFrom(403 as const, 410 as const),
    }),
  },
);

const interruptionArb: fc.Arbitrary<InterruptionCase> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ kind: "none" as const }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("sigint" as const),
      at: fraction,
      atLock: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("sigkill" as const),
      at: fraction,
      atLock: fc.boolean(),
    }),
  },
);

/** The raw draw, before {@link normalize} makes the combination one the CLI accepts. */
const rawCaseArb = fc.record({
  command: fc.constantFrom<CommandKind>(
    "pack",
    "packs",
    "asset",
    "assets",
    "legacy",
    "sync",
    "install",
  ),
  denied: fc.boolean(),
  stdout: fc.boolean(),
  extract: fc.boolean(),
  limitRate: fc.option(
    fc.record({
      rate: fc.constantFrom("4K" as const, "64K" as const, "700K" as const, "3M" as const),
      via: fc.constantFrom("flag" as const, "env" as const),
    }),
    { nil: undefined, freq: 2 },
  ),
  proxy: fc.oneof(
    { weight: 2, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.record({ via: fc.constantFrom("flag" as const, "env" as const) }) },
  ),
  maxDuration: fc.oneof(
    { weight: 3, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom(1 as const, 3 as const) },
  ),
  realClock: fc.boolean(),
  protocol: fc.constantFrom("http" as const, "https" as const),
  packSize: fc.constantFrom(...PACK_SIZES),
  assetSize: fc.constantFrom(...ASSET_SIZES),
  chunkSizes: fc.option(fc.constantFrom(...CHUNKS), { nil: undefined, freq: 3 }),
  serveSeconds: fc.option(fc.constantFrom(0.05, 0.2), { nil: undefined, freq: 4 }),
  fault: faultArb,
  interruption: interruptionArb,
  republish: fc.boolean(),
  refresh: fc.boolean(),
  damage: fc.oneof(
    { weight: 3, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fraction },
  ),
});

/** Bytes per second of each drawn `--limit-rate`. */
export const RATES = { "4K": 4096, "64K": 65_536, "700K": 700 * 1024, "3M": 3 * 1024 * 1024 };

/** How many packs and assets each command fetches. */
export const ITEM_COUNTS: Record<CommandKind, { packs: number; assets: number }> = {
  pack: { packs: 1, assets: 0 },
  packs: { packs: 3, assets: 0 },
  asset: { packs: 0, assets: 1 },
  assets: { packs: 0, assets: 2 },
  legacy: { packs: 1, assets: 0 },
  sync: { packs: 5, assets: 0 },
  install: { packs: 2, assets: 1 },
};

/** Bytes a case's command downloads when nothing goes wrong. */
export function totalBytes(c: Pick<Case, "command" | "packSize" | "assetSize">): number {
  const n = ITEM_COUNTS[c.command];
  return n.packs * c.packSize + n.assets * c.assetSize;
}

/**
 * Makes a drawn combination one the CLI accepts and the suite can afford: `-o -` only for one
 * pack or asset, `--extract` only for the pack commands that take it, into files, smaller files where many packs or
 * few-byte writes are drawn, a real clock only when the rate limit keeps the run short.
 */
function normalize(c: Case): Case {
  const single = c.command === "pack" || c.command === "asset" || c.command === "legacy";
  const stdout = c.stdout && single;
  const extracts = c.command === "pack" || c.command === "packs" || c.command === "sync";
  const extract = c.extract && (extracts || c.command === "install") && !stdout;
  let packSize = c.packSize;
  let assetSize = c.assetSize;
  if (c.command === "packs" || c.command === "sync" || c.command === "install") {
    packSize = Math.min(packSize, MULTI_PACK_MAX);
  }
  if (c.chunkSizes && Math.max(...c.chunkSizes) < 64) {
    packSize = Math.min(packSize, SMALL_WRITES_MAX);
    assetSize = Math.min(assetSize, SMALL_WRITES_MAX);
  }

  const interruption =
    c.interruption.kind !== "none" && stdout
      ? { ...c.interruption, atLock: false } // `-o -` writes no directory: no lock to wait for
      : c.interruption;
  const limitRate = c.limitRate;
  return {
    ...c,
    limitRate,
    interruption,
    denied: c.denied && c.command === "assets",
    republish: c.republish && c.command !== "install",
    refresh: c.refresh && c.command === "sync",
    damage: stdout ? undefined : c.damage,
    stdout,
    extract,
    packSize,
    assetSize,
    // real waits only where they stay short: a rate limit of a few tenths of a second, no
    // retry backoff (its waits grow to seconds), no interruption
    realClock:
      c.realClock &&
      limitRate !== undefined &&
      totalBytes({ command: c.command, packSize, assetSize }) / RATES[limitRate.rate] <= 0.3 &&
      (c.fault.kind === "none" || c.fault.kind === "expired") &&
      c.interruption.kind === "none",
  };
}

/** The generator of cases. */
export const caseArb: fc.Arbitrary<Case> = rawCaseArb.map(normalize);

/** The case in one line, for failure messages. */
export function describeCase(c: Case): string {
  return JSON.stringify(c);
}
