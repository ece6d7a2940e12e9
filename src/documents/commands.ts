import * as z from "zod/mini";
import { count, sha256, text } from "./parts.js";

/**
 * The documents of the commands that are not runs over items (cli-contract "JSON documents"
 * and each command's section), each with its type.
 */

const account = z.looseObject({ id: z.string(), email: z.string(), name: z.string() });
const keyRecord = z.looseObject({
  id: z.string(),
  name: z.string(),
  preview: z.string(),
  scopes: z.array(z.string()),
  created_at: z.string(),
  last_used_at: z.nullable(z.string()),
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
    slug: text,
    name: z.string(),
    asset_count: count,
    purchased_at: z.string(),
    downloads: z.looseObject({ bundle: z.string() }),
  }),
);

/** `assets list --json`: the asset records as received (cli-contract "assets list"). */
export const AssetsListDocumentSchema = z.array(
  z.looseObject({
    slug: text,
    preview_url: z.optional(z.string()),
    download_url: z.optional(z.string()),
  }),
);

/** `cache dir --json`: the cache's absolute path. */
export const CacheDirDocumentSchema = z.strictObject({ dir: text });

/** `cache clean --json`: the cache's path and how many cached files were removed. */
export const CacheCleanDocumentSchema = z.strictObject({
  dir: text,
  removed: count,
});

/** An entry of `cache ls --json` / `cache prune --json`: `last_used` is ISO 8601. */
const cacheEntry = {
  sha256,
  size: count,
  last_used: z.iso.datetime(),
};

/** `cache ls --json` (cli-contract "Manifest, lock and cache"): `locks` name the entry. */
export const CacheLsDocumentSchema = z.strictObject({
  dir: text,
  entries: z.array(z.strictObject({ ...cacheEntry, locks: z.array(z.string()) })),
  total_bytes: count,
});

/** `cache prune --json`: what was (with `dry_run`, would be) removed, and how many stay. */
export const CachePruneDocumentSchema = z.strictObject({
  dir: text,
  dry_run: z.boolean(),
  removed: z.array(z.strictObject(cacheEntry)),
  freed_bytes: count,
  kept: count,
});

/** `config get --json`. */
export const ConfigGetDocumentSchema = z.strictObject({
  key: z.string(),
  value: z.nullable(z.string()),
});

/** `config path --json`. */
export const ConfigPathDocumentSchema = z.strictObject({ path: text });

/** `config set --json`: the key and the value as stored (a proxy's password shown as `***`). */
export const ConfigSetDocumentSchema = z.strictObject({
  key: text,
  value: z.string(),
});

/** `config unset --json`: the key and whether it was set. */
export const ConfigUnsetDocumentSchema = z.strictObject({
  key: text,
  removed: z.boolean(),
});

/**
 * `config list --json`: the config file's path, every settable key (null when unset), and the
 * origins with a stored API key, each with a preview (never the key).
 */
export const ConfigListDocumentSchema = z.strictObject({
  path: text,
  settings: z.record(text, z.nullable(z.string())),
  keys: z.array(z.strictObject({ origin: z.url(), preview: z.string() })),
});

/**
 * `doctor --json` (cli-contract "Operating unattended"): one entry per check, `hint` the next
 * step when not ok (null when ok).
 */
export const DoctorDocumentSchema = z.strictObject({
  checks: z.array(
    z.strictObject({
      name: text,
      status: z.enum(["ok", "warn", "fail"]),
      finding: z.string(),
      hint: z.nullable(z.string()),
    }),
  ),
});

/** `schedule --cron --json`: the crontab line and its log file. */
const scheduleCron = z.strictObject({
  kind: z.literal("cron"),
  /** The schedule's name (the report, metrics and log files are named after it). */
  name: text,
  /** The crontab line. */
  line: text,
  /** The file each run appends its output to. */
  log: text,
});

/**
 * `schedule --systemd --json`: the unit files (absolute path, text, and with `--write` what was
 * done: `created`, `rewritten` or `unchanged`; null without it) and the commands to run next.
 */
const scheduleSystemd = z.strictObject({
  kind: z.literal("systemd"),
  name: text,
  files: z.array(
    z.strictObject({
      path: text,
      text: text,
      action: z.nullable(z.enum(["created", "rewritten", "unchanged"])),
    }),
  ),
  next: z.array(text),
});

/**
 * `schedule --json` (cli-contract "Credentials, schedules and offline runs"): for `--systemd` the
 * unit files and the commands to run next; for `--cron` the crontab line and its log file.
 */
export const ScheduleDocumentSchema = z.discriminatedUnion("kind", [scheduleSystemd, scheduleCron]);

/** The document of {@link WhoamiDocumentSchema}. */
export type WhoamiDocument = z.infer<typeof WhoamiDocumentSchema>;
/** The document of {@link AuthStatusDocumentSchema}. */
export type AuthStatusDocument = z.infer<typeof AuthStatusDocumentSchema>;
/** The document of {@link LoginDocumentSchema}. */
export type LoginDocument = z.infer<typeof LoginDocumentSchema>;
/** The document of {@link LogoutDocumentSchema}. */
export type LogoutDocument = z.infer<typeof LogoutDocumentSchema>;
/** The document of {@link PacksListDocumentSchema}. */
export type PacksListDocument = z.infer<typeof PacksListDocumentSchema>;
/** The document of {@link AssetsListDocumentSchema}. */
export type AssetsListDocument = z.infer<typeof AssetsListDocumentSchema>;
/** The document of {@link CacheDirDocumentSchema}. */
export type CacheDirDocument = z.infer<typeof CacheDirDocumentSchema>;
/** The document of {@link CacheCleanDocumentSchema}. */
export type CacheCleanDocument = z.infer<typeof CacheCleanDocumentSchema>;
/** The document of {@link CacheLsDocumentSchema}. */
export type CacheLsDocument = z.infer<typeof CacheLsDocumentSchema>;
/** The document of {@link CachePruneDocumentSchema}. */
export type CachePruneDocument = z.infer<typeof CachePruneDocumentSchema>;
/** The document of {@link ConfigGetDocumentSchema}. */
export type ConfigGetDocument = z.infer<typeof ConfigGetDocumentSchema>;
/** The document of {@link ConfigPathDocumentSchema}. */
export type ConfigPathDocument = z.infer<typeof ConfigPathDocumentSchema>;
/** The document of {@link ConfigSetDocumentSchema}. */
export type ConfigSetDocument = z.infer<typeof ConfigSetDocumentSchema>;
/** The document of {@link ConfigUnsetDocumentSchema}. */
export type ConfigUnsetDocument = z.infer<typeof ConfigUnsetDocumentSchema>;
/** The document of {@link ConfigListDocumentSchema}. */
export type ConfigListDocument = z.infer<typeof ConfigListDocumentSchema>;
/** The document of {@link DoctorDocumentSchema}. */
export type DoctorDocument = z.infer<typeof DoctorDocumentSchema>;
/** The document of {@link ScheduleDocumentSchema}. */
export type ScheduleDocument = z.infer<typeof ScheduleDocumentSchema>;
