import { dirname } from "node:path";
import { slugProblem } from "../api/slug.js";
import { UsageError } from "../errors/usage-error.js";
import { type ContainmentProblem, containedPath } from "../io/containment.js";
import { NotRegularFileError, readFileNoBlock } from "../io/regular-file.js";
import * as z from "../io/schema.js";
import { formatJsonPath, parseStrictJson } from "../io/strict-json.js";
import type { InstallItemRef } from "./types.js";

/** Default manifest file name, looked up in the working directory. */
export const MANIFEST_FILE = "svc-dl.json";

/** Most bytes of a manifest read: 4 MiB. */
const MAX_MANIFEST_BYTES = 4 << 20;

/** A slug as the manifest may name it: the one slug rule (src/api/slug.ts). */
const slug = z.string().check(
  z.minLength(1, "must not be empty"),
  z.maxLength(200, "is too long"),
  z.refine((s) => slugProblem(s) === undefined, {
    message: "is not a valid slug (no / or \\, no control or format characters, not . or ..)",
  }),
);

/** A bare slug string stands for `{"slug": …}`, so errors name the object's own paths. */
const bareSlug = (v: unknown): unknown => (typeof v === "string" ? { slug: v } : v);

const packEntry = z.pipe(
  z.transform(bareSlug),
  z.strictObject({
    slug,
    edition: z.optional(z.enum(["standard", "authoring"])),
    extract: z.optional(z.boolean()),
  }),
);

const assetEntry = z.pipe(z.transform(bareSlug), z.strictObject({ slug }));

/** The zod schema of `svc-dl.json` (cli-contract "Manifest, lock and cache"); strict: unknown keys are refused. */
export const ManifestSchema = z.strictObject({
  dir: z.string().check(
    z.minLength(1, "must not be empty"),
    z.refine((s) => !/\p{Cc}/u.test(s), { message: "must not contain control characters" }),
  ),
  packs: z.optional(z.array(packEntry)),
  assets: z.optional(z.array(assetEntry)),
});

/** A manifest after validation: the absolute `dir` and every declared item in order. */
export interface Manifest {
  /** Absolute path of the manifest file. */
  path: string;
  /** Absolute path of `dir`, resolved against the manifest's directory (and inside it). */
  dir: string;
  /** Declared items, packs first then assets, each with its JSON path (`packs[1]`). */
  items: InstallItemRef[];
}

/**
 * Reads and validates the manifest at `path` (absolute). A UTF-8 byte-order mark is accepted.
 * The file is read without blocking (src/io/regular-file.ts): a FIFO, device or directory there
 * is refused, never waited on. Throws UsageError (exit 2): `manifest_missing` when the file
 * cannot be read or is not a regular file,
 * `invalid_manifest` naming the JSON path of the first problems (`packs[1].edition: …`) when it
 * is not JSON, names a key twice in one object (src/io/strict-json.ts), breaks the schema,
 * declares an item twice, or has a `dir` that leads outside its folder (see
 * {@link parseManifest}).
 */
export function readManifest(path: string): Manifest {
  let raw: string;
  try {
    raw = readFileNoBlock(path, { follow: true, maxBytes: MAX_MANIFEST_BYTES }).toString("utf8");
  } catch (err) {
    throw new UsageError(`cannot read the manifest ${path}: ${(err as Error).message}`, {
      code: "manifest_missing",
      detail: { path, notRegular: err instanceof NotRegularFileError },
    });
  }
  const json = parseStrictJson(raw);
  if (!json.ok) throw invalid(path, json.problem);
  return parseManifest(json.value, path);
}

/**
 * Validates an already parsed manifest (see {@link readManifest}). `dir` must be a relative
 * path that stays inside the manifest's folder (cli-contract "Untrusted text, paths and
 * caches"; src/io/containment.ts): no absolute path or drive letter, no `..` that climbs out,
 * no symbolic link on the way that leads out; otherwise `invalid_manifest` naming `dir`.
 */
export function parseManifest(json: unknown, path: string): Manifest {
  const parsed = ManifestSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.slice(0, 5).map((issue) => {
      const where = zodPath(issue.path);
      const keys = "keys" in issue && Array.isArray(issue.keys) ? issue.keys : [];
      if (issue.code === "unrecognized_keys" && keys.length > 0) {
        return keys.map((k) => `${formatJsonPath([...where, String(k)])}: unknown key`).join("; ");
      }
      return `${formatJsonPath(where)}: ${issue.message}`;
    });
    throw invalid(path, problems.join("; "));
  }
  const m = parsed.data;
  const items: InstallItemRef[] = [];
  (m.packs ?? []).forEach((e, i) => {
    items.push({
      kind: "pack",
      slug: e.slug,
      edition: e.edition ?? "standard",
      extract: e.extract === true,
      jsonPath: `packs[${i}]`,
    });
  });
  (m.assets ?? []).forEach((e, i) => {
    items.push({
      kind: "asset",
      slug: e.slug,
      edition: null,
      extract: false,
      jsonPath: `assets[${i}]`,
    });
  });
  const seen = new Map<string, string>();
  for (const item of items) {
    const key = `${item.kind}:${item.slug}:${item.edition ?? ""}`;
    const first = seen.get(key);
    if (first !== undefined)
      throw invalid(path, `${item.jsonPath}: declares the same item as ${first}`);
    seen.set(key, item.jsonPath);
  }
  const dir = containedPath(dirname(path), m.dir, (problem) => outsideDir(path, problem), {
    noEscapingSymlinks: true,
  });
  return { path, dir, items };
}

/** zod's path as strings and numbers (symbols never occur in JSON). */
function zodPath(path: readonly PropertyKey[]): (string | number)[] {
  return path.map((p) => (typeof p === "number" ? p : String(p)));
}

const DIR_PROBLEMS: Record<ContainmentProblem, string> = {
  empty: "is empty",
  absolute: "is an absolute path",
  "drive letter": "starts with a drive letter",
  "climbs out": "climbs out of the manifest's folder with ..",
  "control character": "contains a control character",
  "symlink on the way": "goes through a symbolic link that leads outside the manifest's folder",
};

function outsideDir(path: string, problem: ContainmentProblem): UsageError {
  return new UsageError(
    `invalid manifest ${path}: dir: ${DIR_PROBLEMS[problem]}; it must be a relative path inside the manifest's folder`,
    {
      code: "invalid_manifest",
      detail: { field: "dir" },
    },
  );
}

function invalid(path: string, what: string): UsageError {
  return new UsageError(`invalid manifest ${path}: ${what}`, {
    code: "invalid_manifest",
  });
}
