import { z } from "zod";

/**
 * The documents svc-dl prints (cli-contract "JSON documents", "Streams and output"), as zod
 * schemas of what `--json` puts on stdout (and the error line on stderr), so tests and scripts
 * can check them. The domain types they describe are in src/model.ts. Imports nothing ours.
 */

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);
const count = z.number().int().nonnegative();
const kind = z.enum(["pack", "asset"]);
const edition = z.enum(["standard", "authoring"]);

/** The `--json` error line on stderr (cli-contract "Streams and output"). */
export const ErrorLineSchema = z.strictObject({
  error: z.strictObject({
    code: z.string().min(1),
    message: z.string().min(1),
    http_status: z.number().int().nullable(),
    request_id: z.string().nullable(),
    retryable: z.boolean(),
    hint: z.string().nullable(),
  }),
});
export type ErrorLine = z.infer<typeof ErrorLineSchema>;

/** The error object inside an item of a multi-item document (`items[].error`). */
export const ItemErrorSchema = z.strictObject({
  code: z.string().min(1),
  message: z.string().min(1),
  http_status: z.number().int().nullable(),
  request_id: z.string().nullable(),
  /** The item's own next step, or null (as on the `--json` error line). */
  hint: z.string().nullable(),
});

const account = z.looseObject({ id: z.string(), email: z.string(), name: z.string() });
const keyRecord = z.looseObject({
  id: z.string(),
  name: z.string(),
  preview: z.string(),
  scopes: z.array(z.string()),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
});

/** `whoami --json`: the `data` of `GET /v1/me` unchanged. */
export const WhoamiDocumentSchema = z.looseObject({
  account,
  entitlements: z.looseObject({
    lifetime: z.boolean(),
    owned_product_slugs: z.array(z.string()),
    pack_count: count,
    asset_count: count,
  }),
  key: keyRecord,
});

/** `auth status --json` (cli-contract "auth status"). */
export const AuthStatusDocumentSchema = z.strictObject({
  origin: z.url(),
  source: z.enum(["env", "config"]),
  account,
  key: keyRecord,
});

/** `auth login --json`. */
export const LoginDocumentSchema = z.strictObject({
  origin: z.url(),
  account,
  key: keyRecord,
});

/** `auth logout --json`. */
export const LogoutDocumentSchema = z.strictObject({
  origin: z.url(),
  removed: z.boolean(),
});

/** `packs list --json`: the Pack objects as received. */
export const PacksListDocumentSchema = z.array(
  z.looseObject({
    slug: z.string().min(1),
    name: z.string(),
    asset_count: count,
    purchased_at: z.string(),
    downloads: z.looseObject({ bundle: z.string() }),
  }),
);

/** `pack get --extract`: where the ZIP was unpacked and whether that was needed. */
const extracted = z.strictObject({
  path: z.string().min(1),
  status: z.enum(["extracted", "unchanged"]),
  files: count,
});

/** `pack get`/`asset get`/`legacy get --json`, one slug; `extracted` with `pack get --extract`. */
export const GetDocumentSchema = z.strictObject({
  kind,
  slug: z.string().min(1),
  edition: edition.nullable(),
  path: z.string().min(1),
  bytes: count,
  sha256,
  etag: z.string().nullable(),
  status: z.enum(["downloaded", "resumed", "up-to-date", "adopted", "repaired"]),
  resumed_from: count,
  extracted: extracted.optional(),
});
export type GetDocument = z.infer<typeof GetDocumentSchema>;

/** The end of a run document (cli-contract "Operating unattended"; src/run/recorder.ts). */
const runEnd = { complete: z.boolean(), error: z.looseObject({ code: z.string() }).optional() };

/** `pack get` / `asset get --json` with several slugs (cli-contract "pack get": several slugs). */
export const GetManyDocumentSchema = z.strictObject({
  items: z.array(
    z.union([
      GetDocumentSchema,
      z.strictObject({
        kind,
        slug: z.string().min(1),
        edition: edition.nullable(),
        status: z.literal("failed"),
        error: ItemErrorSchema,
      }),
    ]),
  ),
  summary: z.strictObject({
    downloaded: count,
    up_to_date: count,
    failed: count,
    deferred: count.optional(),
  }),
  ...runEnd,
});

/** One item of `packs sync --json` (src/sync/types.ts), with `extracted` under `--extract`. */
export const SyncItemSchema = z.strictObject({
  slug: z.string().min(1),
  edition,
  status: z.enum([
    "downloaded",
    "resumed",
    "repaired",
    "adopted",
    "up-to-date",
    "would-download",
    "unavailable",
    "failed",
  ]),
  reason: z.string().min(1).nullable(),
  path: z.string().min(1).nullable(),
  bytes: count.nullable(),
  sha256: sha256.nullable(),
  error: ItemErrorSchema.nullable(),
  /** `--extract`: where the ZIP was unpacked. */
  extracted: extracted.optional(),
});

/** `packs sync --json`: `filtered` counts packs left out by `--include`/`--exclude`/`--category` (0 without them). */
export const SyncDocumentSchema = z.strictObject({
  dir: z.string().min(1),
  items: z.array(SyncItemSchema),
  summary: z.strictObject({
    downloaded: count,
    up_to_date: count,
    failed: count,
    filtered: count,
  }),
  ...runEnd,
});

/** `verify --json` (cli-contract "verify"; src/commands/verify/verify.run.ts). */
export const VerifyDocumentSchema = z.strictObject({
  dir: z.string().min(1),
  items: z.array(
    z.strictObject({
      path: z.string().min(1),
      status: z.enum(["ok", "changed", "missing", "repaired", "forgotten", "deferred"]),
      sha256: sha256.nullable(),
      bytes: count.nullable(),
      kind,
      slug: z.string().min(1),
      edition: edition.nullable(),
      /** With `--repair`: why the item could not be repaired, or null. */
      error: ItemErrorSchema.nullable().optional(),
    }),
  ),
  summary: z.strictObject({
    ok: count,
    changed: count,
    missing: count,
    repaired: count.optional(),
    forgotten: count.optional(),
    deferred: count.optional(),
  }),
  ...runEnd,
});

/** The facts of a `svc-dl.lock` entry, as `lock_changes` shows them before and after. */
const LockFactsSchema = z.strictObject({
  file: z.string().min(1),
  size: count,
  etag: z.string().nullable(),
  sha256,
});

/**
 * `install --json` (cli-contract "Manifest, lock and cache"; src/install/types.ts): items as in
 * `packs sync` plus `kind` and `source` (null for a failed item), the statuses `cached` and
 * `lock-mismatch`, and `lock_changes` (the lock entries the run added, removed or updated).
 */
export const InstallDocumentSchema = z.strictObject({
  manifest: z.string().min(1),
  lock: z.string().min(1),
  dir: z.string().min(1),
  items: z.array(
    SyncItemSchema.extend({
      kind,
      edition: edition.nullable(),
      status: z.enum([
        "downloaded",
        "cached",
        "resumed",
        "up-to-date",
        "adopted",
        "repaired",
        "lock-mismatch",
        "failed",
      ]),
      source: z.enum(["cache", "network", "local"]).nullable(),
    }),
  ),
  summary: z.strictObject({
    downloaded: count,
    up_to_date: count,
    from_cache: count,
    failed: count,
    lock_mismatch: count,
    no_request: count,
  }),
  lock_changes: z.array(
    z.strictObject({
      kind,
      slug: z.string().min(1),
      edition: edition.nullable(),
      change: z.enum(["added", "removed", "updated"]),
      before: LockFactsSchema.nullable(),
      after: LockFactsSchema.nullable(),
    }),
  ),
  ...runEnd,
});

/** `assets list --json`: the asset records as received (cli-contract "assets list"). */
export const AssetsListDocumentSchema = z.array(
  z.looseObject({
    slug: z.string().min(1),
    preview_url: z.string().optional(),
    download_url: z.string().optional(),
  }),
);

/** `cache dir --json`: the cache's absolute path. */
export const CacheDirDocumentSchema = z.strictObject({ dir: z.string().min(1) });

/** `cache clean --json`: the cache's path and how many cached files were removed. */
export const CacheCleanDocumentSchema = z.strictObject({
  dir: z.string().min(1),
  removed: count,
});

/** `config get --json`. */
export const ConfigGetDocumentSchema = z.strictObject({
  key: z.string(),
  value: z.string().nullable(),
});

/** `config path --json`. */
export const ConfigPathDocumentSchema = z.strictObject({ path: z.string().min(1) });
