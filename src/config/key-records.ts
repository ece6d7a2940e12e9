/**
 * The key records of the config file (cli-contract "Credentials, schedules and offline runs"):
 * `keys` (origin → key, when the key lives in the file), `key-storage` (origin → `"keyring"`,
 * when the OS keyring holds it) and `previews` (origin → the service's `preview` of the key).
 * Pure functions over what was read; the file is untrusted, so entries that are not strings
 * are ignored.
 */
export interface KeyRecords {
  keys?: Record<string, string>;
  previews?: Record<string, string>;
  "key-storage"?: Record<string, string>;
}

/** Where `auth login` stored a key: the OS keyring, or the config file. */
export type KeyLocation = "keyring" | "config";

/** `record[name]` when the record has it as its own string property. */
export function ownString(
  record: Record<string, unknown> | undefined,
  name: string,
): string | undefined {
  const value = record && Object.hasOwn(record, name) ? record[name] : undefined;
  return typeof value === "string" ? value : undefined;
}

/** Where the key of a service origin is stored, or undefined when it has none. */
export function keyLocation(data: KeyRecords, origin: string): KeyLocation | undefined {
  if (ownString(data["key-storage"], origin) === "keyring") return "keyring";
  return ownString(data.keys, origin) === undefined ? undefined : "config";
}

/** Origins that have a stored key, in the file or in the keyring (never the keys themselves). */
export function keyOrigins(data: KeyRecords): string[] {
  const origins = [...Object.keys(data.keys ?? {}), ...Object.keys(data["key-storage"] ?? {})];
  return [...new Set(origins)].filter((o) => keyLocation(data, o) !== undefined);
}

/** Copies of the three key fields without any record of `origin` (string entries only). */
export function keyFieldsWithout(
  data: KeyRecords,
  origin: string,
): Required<{ [K in keyof KeyRecords]: Record<string, string> }> {
  const copy = (r: Record<string, unknown> | undefined) => {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(r ?? {})) {
      if (typeof v === "string" && k !== origin) out[k] = v;
    }
    return out;
  };
  return {
    keys: copy(data.keys),
    previews: copy(data.previews),
    "key-storage": copy(data["key-storage"]),
  };
}
