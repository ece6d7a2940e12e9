/**
 * The live state of the mock: the fixture plus switches, with the ownership
 * and entitlement rules of the spec (purchases, lifetime access, paid / not
 * paid orders, availability of packs and assets).
 */
import type {
  Edition,
  Fixture,
  FixtureAccount,
  FixtureApiKey,
  FixtureAsset,
  FixtureLicenseKey,
  FixtureOrder,
  FixturePack,
} from "./fixture-types.js";

/** Default standard pack size: 2 MiB. */
export const DEFAULT_PACK_SIZE = 2 * 1024 * 1024;
/** Default asset (GLB) size: 256 KiB. */
export const DEFAULT_ASSET_SIZE = 256 * 1024;

/** A pack the account owns, with the order it came from. */
export interface OwnedPack {
  pack: FixturePack;
  order: FixtureOrder | null;
  purchasedAt: string;
}

/** Access to an item: granted, owned only through unpaid orders, or not owned. */
export type Access = "ok" | "unpaid" | "none";

/** What identifies the bytes of one file version. */
export interface FileSpec {
  kind: "pack" | "asset";
  slug: string;
  edition: Edition;
  version: number;
  /** Bytes wanted (the generator may round up tiny sizes). */
  size: number;
  /** Number of GLB entries for packs. */
  assetCount: number;
}

/** Mutable mock state over a fixture. */
export class MockState {
  /** Global switch: the API is off. */
  apiDisabled = false;
  packSize: number | null = null;
  assetSize: number | null = null;

  constructor(public readonly fixture: Fixture) {}

  account(id: string): FixtureAccount | undefined {
    return this.fixture.accounts.find((a) => a.id === id);
  }
  /** Key by id or by full value. */
  key(idOrValue: string): FixtureApiKey | undefined {
    return this.fixture.apiKeys.find((k) => k.id === idOrValue || k.key === idOrValue);
  }
  licenseKey(value: string): FixtureLicenseKey | undefined {
    return this.fixture.licenseKeys.find((k) => k.key === value || k.id === value);
  }
  order(id: string): FixtureOrder | undefined {
    return this.fixture.orders.find((o) => o.id === id);
  }
  pack(slug: string): FixturePack | undefined {
    return this.fixture.packs.find((p) => p.slug === slug);
  }
  asset(slug: string): FixtureAsset | undefined {
    return this.fixture.assets.find((a) => a.slug === slug);
  }
  ordersOf(accountId: string): FixtureOrder[] {
    return this.fixture.orders.filter((o) => o.account === accountId);
  }

  /** True when the key's expiry date has passed. */
  isExpired(key: FixtureApiKey, now: number = Date.now()): boolean {
    return key.expires_at != null && Date.parse(key.expires_at) <= now;
  }

  /** Lifetime access: the account flag, or a paid order with `lifetime: true`. */
  hasLifetime(account: FixtureAccount): boolean {
    return account.lifetime === true || this.ordersOf(account.id).some((o) => o.lifetime && o.paid);
  }

  /** Eligible for the API: has a purchase (any order) or lifetime access, unless forced otherwise. */
  isEligible(account: FixtureAccount): boolean {
    if (account.notEligible === true) return false;
    return account.lifetime === true || this.ordersOf(account.id).length > 0;
  }

  /** Published packs the account owns (bought, or all with lifetime), oldest purchase first, then slug. */
  ownedPacks(account: FixtureAccount): OwnedPack[] {
    const orders = [...this.ordersOf(account.id)].sort((a, b) =>
      a.created_at.localeCompare(b.created_at),
    );
    const bySlug = new Map<string, OwnedPack>();
    for (const o of orders) {
      for (const slug of o.packs) {
        const pack = this.pack(slug);
        if (pack === undefined || bySlug.has(slug)) continue;
        bySlug.set(slug, { pack, order: o, purchasedAt: o.created_at });
      }
    }
    if (this.hasLifetime(account)) {
      const lifetimeOrder = orders.find((o) => o.lifetime && o.paid) ?? null;
      for (const pack of this.fixture.packs) {
        if (bySlug.has(pack.slug)) continue;
        bySlug.set(pack.slug, {
          pack,
          order: lifetimeOrder,
          purchasedAt: lifetimeOrder?.created_at ?? "2024-01-01T00:00:00.000Z",
        });
      }
    }
    return [...bySlug.values()]
      .filter((o) => (o.pack.availability ?? "published") === "published")
      .sort(
        (a, b) =>
          a.purchasedAt.localeCompare(b.purchasedAt) || a.pack.slug.localeCompare(b.pack.slug),
      );
  }

  /** Download access to a pack: a paid order containing it, or lifetime access. */
  packAccess(account: FixtureAccount, slug: string): Access {
    if (this.hasLifetime(account)) return "ok";
    const orders = this.ordersOf(account.id).filter((o) => o.packs.includes(slug) || o.lifetime);
    if (orders.some((o) => o.paid)) return "ok";
    return orders.length > 0 ? "unpaid" : "none";
  }

  /** Download access to an asset: free assets always, premium ones through their pack or lifetime. */
  assetAccess(account: FixtureAccount, asset: FixtureAsset): Access {
    if (!asset.premium) return "ok";
    if (this.hasLifetime(account)) return "ok";
    if (asset.pack === null) {
      return this.ordersOf(account.id).some((o) => o.lifetime && !o.paid) ? "unpaid" : "none";
    }
    return this.packAccess(account, asset.pack);
  }

  /** Number of assets covered by the account's entitlements. */
  coveredAssetCount(account: FixtureAccount): number {
    return this.ownedPacks(account).reduce((n, o) => n + o.pack.asset_count, 0);
  }

  /** Spec of the current file of a pack edition. */
  packFile(pack: FixturePack, edition: Edition): FileSpec {
    const base = this.packSize ?? pack.size ?? DEFAULT_PACK_SIZE;
    const size =
      edition === "authoring"
        ? (this.packSize ?? pack.authoring_size ?? Math.round(base * 1.5))
        : base;
    return {
      kind: "pack",
      slug: pack.slug,
      edition,
      version: pack.version ?? 1,
      size,
      assetCount: pack.asset_count,
    };
  }

  /** Spec of the current file of an asset. */
  assetFile(asset: FixtureAsset): FileSpec {
    return {
      kind: "asset",
      slug: asset.slug,
      edition: "standard",
      version: asset.version ?? 1,
      size: this.assetSize ?? asset.size ?? DEFAULT_ASSET_SIZE,
      assetCount: 1,
    };
  }
}
