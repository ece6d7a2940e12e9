/**
 * Fixture loading and validation: the JSON format of accounts, API keys,
 * license keys, orders, packs and assets (documented in README.md, "Testing your scripts offline with svc-dl-mock"),
 * the shipped default fixture, and the `extraPacks` generator.
 */
import { readFileSync } from "node:fs";
import type { Fixture } from "./fixture-types.js";
import { isWellFormedApiKey, keyChecksum } from "./keys.js";

/** Absolute path of the shipped default fixture (`fixtures/default.json`, two levels above this module in src/ and dist/). */
export const DEFAULT_FIXTURE_URL = new URL("../../fixtures/default.json", import.meta.url);

/** Read and validate a fixture file. */
export function loadFixtureFile(path: string | URL): Fixture {
  const raw: unknown = JSON.parse(readFileSync(path, "utf8"));
  return validateFixture(raw);
}

/** The shipped default fixture (a fresh copy each call). */
export function defaultFixture(): Fixture {
  return loadFixtureFile(DEFAULT_FIXTURE_URL);
}

function fail(msg: string): never {
  throw new Error(`svc-dl-mock: invalid fixture: ${msg}`);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Check the structure and cross references of a fixture; returns a deep copy.
 * Throws an Error naming the first problem (e.g. a key with a wrong checksum,
 * giving the correct key).
 */
export function validateFixture(raw: unknown): Fixture {
  if (!isObject(raw)) fail("top level must be an object");
  for (const f of ["accounts", "apiKeys", "licenseKeys", "orders", "packs", "assets"]) {
    if (!Array.isArray(raw[f])) fail(`"${f}" must be an array`);
  }
  if (!isObject(raw.demo)) fail(`"demo" must be {"apiKey": <key id>, "licenseKey": <license id>}`);
  const fx = structuredClone(raw) as unknown as Fixture;
  const accounts = new Set<string>();
  for (const a of fx.accounts) {
    if (typeof a.id !== "string" || !a.id.startsWith("usr_"))
      fail(`account id must start with usr_: ${a.id}`);
    accounts.add(a.id);
  }
  const packs = new Set(fx.packs.map((p) => p.slug));
  const orders = new Set<string>();
  for (const o of fx.orders) {
    if (typeof o.id !== "string" || !o.id.startsWith("ord_"))
      fail(`order id must start with ord_: ${o.id}`);
    if (!accounts.has(o.account)) fail(`order ${o.id}: unknown account ${o.account}`);
    for (const s of o.packs) if (!packs.has(s)) fail(`order ${o.id}: unknown pack ${s}`);
    if (o.amount !== null && typeof o.amount !== "number")
      fail(`order ${o.id}: amount must be a number or null`);
    orders.add(o.id);
  }
  for (const k of fx.apiKeys) {
    if (typeof k.id !== "string" || !k.id.startsWith("key_"))
      fail(`key id must start with key_: ${k.id}`);
    if (!accounts.has(k.account)) fail(`key ${k.id}: unknown account ${k.account}`);
    if (!isWellFormedApiKey(k.key)) {
      const body = /^svc_live_([A-Za-z0-9]{32})/.exec(k.key)?.[1];
      fail(
        body === undefined
          ? `key ${k.id}: must be svc_live_ + 32 letters/digits + _ + 8 hex checksum`
          : `key ${k.id}: bad checksum, the key should be svc_live_${body}_${keyChecksum(body)}`,
      );
    }
    for (const s of k.scopes) {
      if (s !== "catalog:read" && s !== "downloads:read") fail(`key ${k.id}: unknown scope ${s}`);
    }
  }
  for (const l of fx.licenseKeys) {
    if (typeof l.key !== "string" || !l.key.startsWith("SVC_"))
      fail(`license key ${l.id} must start with SVC_`);
    if (!orders.has(l.order)) fail(`license key ${l.id}: unknown order ${l.order}`);
  }
  for (const a of fx.assets) {
    if (a.pack !== null && !packs.has(a.pack)) fail(`asset ${a.slug}: unknown pack ${a.pack}`);
  }
  if (!fx.apiKeys.some((k) => k.id === fx.demo.apiKey))
    fail(`demo.apiKey: unknown key id ${fx.demo.apiKey}`);
  if (!fx.licenseKeys.some((k) => k.id === fx.demo.licenseKey)) {
    fail(`demo.licenseKey: unknown license key id ${fx.demo.licenseKey}`);
  }
  return fx;
}

/**
 * Add `n` published packs `bench-pack-001` … owned (one paid order) by the
 * account of the demo key; for benchmarks that sync many packs. Mutates `fx`.
 */
export function addExtraPacks(fx: Fixture, n: number): void {
  if (n <= 0) return;
  const demo = fx.apiKeys.find((k) => k.id === fx.demo.apiKey);
  if (demo === undefined) return;
  const slugs: string[] = [];
  const width = Math.max(3, String(n).length);
  for (let i = 1; i <= n; i++) {
    const num = String(i).padStart(width, "0");
    const slug = `bench-pack-${num}`;
    slugs.push(slug);
    fx.packs.push({
      slug,
      name: `Bench Pack ${num}`,
      description: `Generated pack ${num} for benchmarks.`,
      categories: ["benchmark"],
      asset_count: 4,
      availability: "published",
      authoring: false,
      version: 1,
      size: 1024 * 1024,
    });
  }
  fx.orders.push({
    id: "ord_bench",
    account: demo.account,
    packs: slugs,
    amount: 0,
    currency: "usd",
    paid: true,
    created_at: "2025-01-01T00:00:00.000Z",
  });
}
