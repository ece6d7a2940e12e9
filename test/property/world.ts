import { afterAll, beforeAll } from "vitest";
import type { Faults, FileRef, MockService } from "../../src/mock-server/index.js";
import { registerSecret } from "../helpers/cli.js";
import { type FrontServer, startTlsFronts } from "../helpers/front-server.js";
import { useMockService } from "../helpers/mock.js";
import { type ForwardProxy, startForwardProxy } from "../helpers/proxy.js";
import { makeSelfSignedCert } from "../helpers/tls.js";
import type { Case, CommandKind, FaultCase } from "./case.js";

// The service every case runs against: one mock (both origins over http), two https fronts
// with a private CA in front of it and a forward proxy on loopback, started once per test file;
// each case sets the mock's sizes, pace, write sizes and fault.

/** One item a command asks for, with the bytes the mock serves for it. */
export interface ServedItem {
  ref: FileRef;
  /** The file name the service gives it. */
  filename: string;
  sha256: string;
  size: number;
  /** The account may not download it: the item fails, and must leave no file. */
  denied: boolean;
  /** SHA-256 of the version served before the case published a new one, if it did. */
  previousSha256?: string;
  /**
   * Its file may stay the version before the new one: `packs sync` without `--refresh` had
   * completed it (complete packs are skipped with no request, cli-contract `packs sync`).
   */
  mayKeepPrevious?: boolean;
}

/** The running service of a test file. */
export interface World {
  readonly mock: MockService;
  /**
   * `SVC_BASE_URL`, `SVC_API_KEY`, `SVC_LICENSE_KEY` (for `legacy get`) and, over https,
   * `SVC_CA_FILE` for a protocol.
   */
  env(protocol: Case["protocol"]): Record<string, string>;
  /** The forward proxy (test/helpers/proxy.ts) the cases that draw one go through. */
  readonly proxy: ForwardProxy;
}

/** Slugs of the packs the demo account owns, in list order (`packs sync` fetches them all). */
const OWNED_PACKS = [
  "desert-rocks",
  "low-poly-forest",
  "sci-fi-props",
  "medieval-village",
  "ocean-creatures",
];

/** The pack `legacy get` asks for, covered by the demo license key. */
export const LEGACY_PACK = "low-poly-forest";

/** The `svc-dl.json` of the `install` cases: two packs (one authoring edition) and an asset. */
export const MANIFEST = {
  dir: "vendor/assets",
  packs: ["sci-fi-props", { slug: "low-poly-forest", edition: "authoring" }],
  assets: ["free-sample-cube"],
};

/** The slugs on the command line (none for `packs sync` and `install`; `legacy get` has its own). */
export function commandSlugs(c: Case): string[] {
  const slugs: Record<CommandKind, string[]> = {
    pack: ["medieval-village"],
    packs: ["desert-rocks", "sci-fi-props", "ocean-creatures"],
    asset: ["forest-pine-tree"],
    assets: ["free-sample-cube", "village-well", ...(c.denied ? ["station-airlock"] : [])],
    legacy: [],
    sync: [],
    install: [],
  };
  return slugs[c.command];
}

/** What a case's command asks for, as file references (with `denied` for the refused asset). */
function itemRefs(c: Case): { ref: FileRef; denied: boolean }[] {
  const pack = (slug: string, edition: "standard" | "authoring" = "standard") => ({
    ref: { kind: "pack" as const, slug, edition },
    denied: false,
  });
  if (c.command === "sync") return OWNED_PACKS.map((s) => pack(s));
  if (c.command === "legacy") return [pack(LEGACY_PACK)];
  if (c.command === "install") {
    return [
      pack("sci-fi-props"),
      pack("low-poly-forest", "authoring"),
      { ref: { kind: "asset", slug: "free-sample-cube" }, denied: false },
    ];
  }
  const kind = c.command === "pack" || c.command === "packs" ? "pack" : "asset";
  return commandSlugs(c).map((slug) =>
    kind === "pack"
      ? pack(slug)
      : { ref: { kind: "asset" as const, slug }, denied: slug === "station-airlock" },
  );
}

/** The mock's faults for a drawn fault, sized after the first file the command fetches. */
export function faultsFor(c: Case, firstSize: number): Faults {
  const at = (f: number, least = 0): number => cutBytes(f, firstSize, least);
  const f: FaultCase = c.fault;
  const base: Faults = {
    ...(c.chunkSizes ? { chunkSizes: c.chunkSizes } : {}),
    ...(c.serveSeconds
      ? { throttleBytesPerSecond: Math.ceil(Math.max(c.packSize, c.assetSize) / c.serveSeconds) }
      : {}),
  };
  switch (f.kind) {
    case "none":
      return base;
    case "cut":
      return f.clean
        ? { ...base, shortBody: { bytes: at(f.at), count: f.count } }
        : { ...base, dropAfterBytes: { bytes: at(f.at), count: f.count } };
    case "cut-forever":
      return { ...base, dropAfterBytes: { bytes: at(f.at), count: 1_000_000 } };
    case "5xx":
      return { ...base, serverError: { count: f.count, origin: f.origin, status: f.status } };
    case "5xx-forever":
      return { ...base, serverError: { count: 1_000_000, origin: "cdn", status: 503 } };
    case "416-on-resume":
      return {
        ...base,
        dropAfterBytes: { bytes: at(f.at, 1), count: 1 },
        rangeNotSatisfiable: { count: 1 },
      };
    case "expired":
      return { ...base, cdnExpired: { count: f.count, status: f.status } };
  }
}

/** Body bytes before a cut drawn at `fraction` of the first file's `firstSize` bytes. */
function cutBytes(fraction: number, firstSize: number, least = 0): number {
  return Math.max(least, Math.floor(fraction * firstSize));
}

/**
 * What the drawn fault lets the first run end with: success (`ok`), failure with exit 1 or 7
 * (`fails`: a fault that never ends), or either. Either: every body cut after the same number
 * of bytes lets each resume bring that many more, so the run may finish within its retries
 * (only a cut before the first byte never ends); `-o -` answered 416 on its resume cannot take
 * back what it wrote and fails, unless the cut came before anything was written. After a
 * failure the re-run without the fault succeeds.
 */
export function faultOutcome(c: Case, firstSize: number): "ok" | "fails" | "either" {
  if (c.fault.kind === "5xx-forever") return "fails";
  if (c.fault.kind === "cut-forever") {
    return cutBytes(c.fault.at, firstSize) === 0 ? "fails" : "either";
  }
  if (c.fault.kind === "416-on-resume" && c.stdout) return "either";
  return "ok";
}

/**
 * Sets the mock for case `c` (sizes, pace, write sizes, fault; limits and request log reset)
 * and returns what the command asks for, with the bytes served for each, and what `fetch`
 * (called with the first item before the fault is set) returns.
 */
export async function applyCase<T>(
  mock: MockService,
  c: Case,
  fetch: (first: FileRef) => Promise<T>,
): Promise<{ served: ServedItem[]; bytes: T }> {
  mock.set({ faults: {}, packSize: c.packSize, assetSize: c.assetSize });
  mock.resetLimits();
  mock.clearLog();
  const served: ServedItem[] = [];
  for (const { ref, denied } of itemRefs(c)) {
    const info = await mock.fileInfo(ref);
    served.push({ ref, filename: info.filename, sha256: info.sha256, size: info.size, denied });
  }
  const first = served.find((i) => !i.denied);
  if (!first) throw new Error("a case asks for no item the account may download");
  const bytes = await fetch(first.ref);
  mock.set({ faults: faultsFor(c, first.size) });
  return { served, bytes };
}

/**
 * Publishes a new version of every item in `items` the account may download (new bytes, new
 * ETag, same file name) and returns the items with what the mock serves now; `keeps` tells
 * which items may keep the version they had.
 */
export async function republish(
  mock: MockService,
  items: readonly ServedItem[],
  keeps: (item: ServedItem) => boolean,
): Promise<ServedItem[]> {
  const now: ServedItem[] = [];
  for (const item of items) {
    if (!item.denied) {
      const { ref } = item;
      if (ref.kind === "pack") mock.bumpPackVersion(ref.slug);
      else
        mock.set({ assets: { [ref.slug]: { version: (await mock.fileInfo(ref)).version + 1 } } });
    }
    const info = await mock.fileInfo(item.ref);
    now.push({
      ...item,
      filename: info.filename,
      sha256: info.sha256,
      size: info.size,
      previousSha256: item.sha256,
      mayKeepPrevious: keeps(item),
    });
  }
  return now;
}

/** Lifts the drawn fault, keeping the mock's pace and write sizes (for the re-run). */
export function liftFault(mock: MockService, c: Case): void {
  mock.set({ faults: faultsFor({ ...c, fault: { kind: "none" } }, 0) });
}

/**
 * Starts the service for the calling test file (the mock of {@link useMockService}, then the
 * https fronts and the forward proxy, in beforeAll) and stops it (afterAll).
 */
export function useWorld(): World {
  const shared = useMockService({
    limits: {
      download: { quota: 1_000_000, windowSeconds: 60 },
      read: { quota: 1_000_000, windowSeconds: 60 },
    },
  });
  let fronts: { api: FrontServer; cdn: FrontServer } | undefined;
  let proxy: ForwardProxy | undefined;
  let caFile = "";
  beforeAll(async () => {
    registerSecret(shared.mock.apiKey);
    registerSecret(shared.mock.licenseKey);
    const cert = makeSelfSignedCert(["IP:127.0.0.1"]);
    if (!cert) throw new Error("openssl is needed for the private CA of the https cases");
    caFile = cert.caFile;
    fronts = await startTlsFronts(shared.mock, cert);
    proxy = await startForwardProxy();
  });
  afterAll(async () => {
    await fronts?.api.close();
    await fronts?.cdn.close();
    await proxy?.close();
  });
  return {
    get mock() {
      return shared.mock;
    },
    get proxy() {
      if (!proxy) throw new Error("the forward proxy is not running");
      return proxy;
    },
    env(protocol) {
      const licence = { SVC_LICENSE_KEY: shared.mock.licenseKey };
      if (protocol === "http") return { ...shared.env(), ...licence };
      if (!fronts) throw new Error("the https fronts are not running");
      return {
        SVC_BASE_URL: fronts.api.url,
        SVC_API_KEY: shared.mock.apiKey,
        SVC_CA_FILE: caFile,
        ...licence,
      };
    },
  };
}
