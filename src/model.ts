import { z } from "zod";

/**
 * The domain of svc-dl and the documents it prints (cli-contract "JSON documents"). Types here
 * are the source for the rest of the code; the zod schemas describe what `--json` puts on
 * stdout (and the error line on stderr) so that tests and scripts can check it. Imports nothing
 * of ours.
 */

/** What can be downloaded: a pack (a ZIP with editions) or a single asset. */
export type ItemKind = "pack" | "asset";

/** A pack's edition (spec "Pack": `downloads.bundle` is standard, `downloads.authoring`). */
export type Edition = "standard" | "authoring";

/** A pack's edition, as `packs sync` names its targets. */
export type PackEdition = Edition;

/** `packs sync --edition`: one edition, or both where the pack has an authoring one. */
export type EditionChoice = Edition | "all";

/** Identifies a downloadable item: a pack edition or an asset (`edition` null). */
export interface ItemRef {
  kind: ItemKind;
  slug: string;
  edition: Edition | null;
}

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
export const ItemErrorSchema = z.looseObject({
  code: z.string().min(1),
  message: z.string(),
  http_status: z.number().int().nullable(),
  request_id: z.string().nullable(),
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

/** `pack get` / `asset get` / `legacy get --json` with one slug. */
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
});
export type GetDocument = z.infer<typeof GetDocumentSchema>;

/** `pack get` / `asset get --json` with several slugs. */
export const GetManyDocumentSchema = z.looseObject({
  items: z.array(
    z.union([
      GetDocumentSchema,
      z.looseObject({
        kind,
        slug: z.string(),
        edition: edition.nullable(),
        status: z.literal("failed"),
        error: ItemErrorSchema,
      }),
    ]),
  ),
  summary: z.looseObject({ downloaded: count, up_to_date: count, failed: count }),
});

/** One item of `packs sync --json` (and, with `source`, of `install --json`). */
export const SyncItemSchema = z.looseObject({
  slug: z.string().min(1),
  edition,
  status: z.enum([
    "downloaded",
    "resumed",
    "up-to-date",
    "adopted",
    "repaired",
    "unavailable",
    "failed",
    "would-download",
    "skipped",
  ]),
  reason: z.string().nullable(),
  path: z.string().nullable(),
  bytes: count.nullable(),
  sha256: sha256.nullable(),
  error: ItemErrorSchema.nullable(),
});

/** `packs sync --json`. */
export const SyncDocumentSchema = z.looseObject({
  dir: z.string().min(1),
  items: z.array(SyncItemSchema),
  summary: z.looseObject({ downloaded: count, up_to_date: count, failed: count }),
});

/** `verify --json`. */
export const VerifyDocumentSchema = z.looseObject({
  dir: z.string().min(1),
  items: z.array(
    z.looseObject({
      path: z.string().min(1),
      status: z.enum(["ok", "changed", "missing", "repaired"]),
      sha256: sha256.nullable(),
    }),
  ),
});

/** `install --json`. */
export const InstallDocumentSchema = z.looseObject({
  manifest: z.string().min(1),
  lock: z.string().min(1),
  dir: z.string().min(1),
  items: z.array(
    SyncItemSchema.extend({
      kind,
      edition: edition.nullable(),
      source: z.enum(["cache", "network", "local"]),
    }),
  ),
  summary: z.looseObject({}),
});

/** `config get --json`. */
export const ConfigGetDocumentSchema = z.strictObject({
  key: z.string(),
  value: z.string().nullable(),
});

/** `config path --json`. */
export const ConfigPathDocumentSchema = z.strictObject({ path: z.string().min(1) });
