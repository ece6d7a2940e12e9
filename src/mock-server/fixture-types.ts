/**
 * The fixture of svc-dl-mock: the accounts, keys, orders, packs and assets it serves (spec,
 * "Account", "API key", "Pack"), as loaded from a JSON file. Part of the programmatic API
 * agreed in `docs/mock-service.md`.
 */

/** Edition of a pack file (spec, "Other resources"). */
export type Edition = "standard" | "authoring";

/** Availability of a pack or asset (spec, "Other named states"). */
export type Availability = "published" | "coming-soon" | "archived";

/** An account of the fixture (spec, "Account"). */
export interface FixtureAccount {
  /** Account id, prefix `usr_`. */
  id: string;
  email: string;
  name: string;
  /** Lifetime access granted directly (also granted by a paid order with `lifetime: true`). */
  lifetime?: boolean;
  /** Every request with one of this account's keys answers 403 `blocked` (`Access denied`) before anything else. */
  blocked?: boolean;
  /** API access switched off for this account: 403 `api_disabled`. */
  apiDisabled?: boolean;
  /** Force 403 `not_eligible` (otherwise derived: an account with no order and no lifetime flag is not eligible). */
  notEligible?: boolean;
}

/** An API key of the fixture (spec, "API key"). */
export interface FixtureApiKey {
  /** Key id, prefix `key_`. */
  id: string;
  /** Owning account id. */
  account: string;
  /** Label the user gave the key. */
  name: string;
  /** Full key: `svc_live_` + 32 letters/digits + `_` + 8 lower-case hex CRC-32 checksum of the 32-char body. */
  key: string;
  /** Scopes: `catalog:read`, `downloads:read`. */
  scopes: string[];
  /** ISO timestamp. */
  created_at: string;
  /** ISO timestamp or null (never used). */
  last_used_at?: string | null;
  /** ISO timestamp after which the key is expired, or null/absent for never. */
  expires_at?: string | null;
  /** True once revoked. */
  revoked?: boolean;
}

/** A license key of the fixture (legacy `POST /api/download`). */
export interface FixtureLicenseKey {
  /** Identifier used in `mock.licenseKeys`. */
  id: string;
  /** Full license key, prefix `SVC_`. */
  key: string;
  /** The order this license key belongs to (its packs / lifetime flag decide coverage, its `paid` flag denial). */
  order: string;
}

/** An order of the fixture. */
export interface FixtureOrder {
  /** Order id, prefix `ord_`. */
  id: string;
  /** Owning account id. */
  account: string;
  /** Pack slugs bought by this order. */
  packs: string[];
  /** True when the order bought lifetime access. */
  lifetime?: boolean;
  /** Total in minor currency units (cents), or null when never recorded (unknown, not free). */
  amount: number | null;
  /** ISO 4217 code, lower case, e.g. `usd`. */
  currency?: string;
  /** False while a refund or dispute is open: new downloads unavailable. */
  paid: boolean;
  /** ISO timestamp: the purchase time (`purchased_at` of the packs). */
  created_at: string;
}

/** A pack of the fixture (spec, "Pack"). */
export interface FixturePack {
  slug: string;
  name: string;
  description: string;
  categories: string[];
  /** Assets in the pack (the `asset_count` field); also the number of GLB entries in the ZIP, capped. */
  asset_count: number;
  /** Default `published`. */
  availability?: Availability;
  /** True when the pack has an authoring edition. */
  authoring?: boolean;
  /** File version; bumping it changes the bytes and the ETag. Default 1. */
  version?: number;
  /** Standard edition ZIP size in bytes (default 2 MiB). */
  size?: number;
  /** Authoring edition ZIP size in bytes (default 1.5 × size). */
  authoring_size?: number;
}

/** An asset of the fixture. */
export interface FixtureAsset {
  slug: string;
  name: string;
  /** Pack the asset belongs to (null for a stand-alone free asset). */
  pack: string | null;
  /** Premium assets need the pack or lifetime access; free ones any valid key. */
  premium: boolean;
  /** Default `published`. */
  availability?: Availability;
  /** GLB size in bytes (default 256 KiB). */
  size?: number;
  /** File version, default 1. */
  version?: number;
  /** When true, the asset exists but its file does not: 404 `file_unavailable`. */
  file_missing?: boolean;
}

/** The whole mock state, as loaded from a JSON fixture file (see README.md, "Testing your scripts offline with svc-dl-mock"). */
export interface Fixture {
  /** Which key ids are the demo credentials (`mock.apiKey`, `mock.licenseKey`, printed by the CLI). */
  demo: { apiKey: string; licenseKey: string };
  accounts: FixtureAccount[];
  apiKeys: FixtureApiKey[];
  licenseKeys: FixtureLicenseKey[];
  orders: FixtureOrder[];
  packs: FixturePack[];
  assets: FixtureAsset[];
}
