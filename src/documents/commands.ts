import { z } from "zod";
import { count } from "./parts.js";

/** The documents of the commands that are not runs over items (src/documents.ts). */

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
  source: z.enum(["env", "file", "systemd-credential", "keyring", "config"]),
  account,
  key: keyRecord,
});

/** `auth login --json`; `storage`: where the key was stored (the OS keyring or the config file). */
export const LoginDocumentSchema = z.strictObject({
  origin: z.url(),
  account,
  key: keyRecord,
  storage: z.enum(["keyring", "config"]),
});

/** `auth logout --json`; `from`: the places the key was removed from. */
export const LogoutDocumentSchema = z.strictObject({
  origin: z.url(),
  removed: z.boolean(),
  from: z.array(z.enum(["keyring", "config"])),
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

/** An entry of `cache ls --json` / `cache prune --json`: `last_used` is ISO 8601. */
const cacheEntry = {
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  size: count,
  last_used: z.iso.datetime(),
};

/** `cache ls --json` (cli-contract "Manifest, lock and cache"): `locks` name the entry. */
export const CacheLsDocumentSchema = z.strictObject({
  dir: z.string().min(1),
  entries: z.array(z.strictObject({ ...cacheEntry, locks: z.array(z.string()) })),
  total_bytes: count,
});

/** `cache prune --json`: what was (with `dry_run`, would be) removed, and how many stay. */
export const CachePruneDocumentSchema = z.strictObject({
  dir: z.string().min(1),
  dry_run: z.boolean(),
  removed: z.array(z.strictObject(cacheEntry)),
  freed_bytes: count,
  kept: count,
});

/** `config get --json`. */
export const ConfigGetDocumentSchema = z.strictObject({
  key: z.string(),
  value: z.string().nullable(),
});

/** `config path --json`. */
export const ConfigPathDocumentSchema = z.strictObject({ path: z.string().min(1) });

/** `config set --json`: the key and the value as stored (a proxy's password shown as `***`). */
export const ConfigSetDocumentSchema = z.strictObject({
  key: z.string().min(1),
  value: z.string(),
});

/** `config unset --json`: the key and whether it was set. */
export const ConfigUnsetDocumentSchema = z.strictObject({
  key: z.string().min(1),
  removed: z.boolean(),
});

/**
 * `config list --json`: the config file's path, every settable key (null when unset), and the
 * origins with a stored API key, each with a preview (never the key).
 */
export const ConfigListDocumentSchema = z.strictObject({
  path: z.string().min(1),
  settings: z.record(z.string().min(1), z.string().nullable()),
  keys: z.array(z.strictObject({ origin: z.url(), preview: z.string() })),
});

/**
 * `doctor --json` (cli-contract "Operating unattended"): one entry per check, `hint` the next
 * step when not ok (null when ok).
 */
export const DoctorDocumentSchema = z.strictObject({
  checks: z.array(
    z.strictObject({
      name: z.string().min(1),
      status: z.enum(["ok", "warn", "fail"]),
      finding: z.string(),
      hint: z.string().nullable(),
    }),
  ),
});

/**
 * `schedule --json` (cli-contract "Credentials, schedules and offline runs"): for `--systemd` the
 * unit files (absolute path, text, and what `--write` did: null when only printed) and the
 * commands to run next; for `--cron` the crontab line and its log file.
 */
export const ScheduleDocumentSchema = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("systemd"),
    name: z.string().min(1),
    files: z.array(
      z.strictObject({
        path: z.string().min(1),
        text: z.string().min(1),
        action: z.enum(["created", "rewritten", "unchanged"]).nullable(),
      }),
    ),
    next: z.array(z.string().min(1)),
  }),
  z.strictObject({
    kind: z.literal("cron"),
    name: z.string().min(1),
    line: z.string().min(1),
    log: z.string().min(1),
  }),
]);
