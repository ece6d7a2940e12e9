import { existsSync, lstatSync, readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { assertNoSecrets } from "../../helpers/cli.js";

/** Files larger than this are not read (downloads in these tests are a few MiB at most). */
const MAX_SCAN_BYTES = 64 * 1024 * 1024;

/**
 * The config file's one legitimate place for a full API key: `auth login` stores the key it
 * checked under `keys[<origin>]` (cli-contract "Configuration and credentials"). Returns the
 * text to scan: the file with those `svc_live_…` values removed, everything else kept (a
 * license key, or an API key anywhere else in the file, is still found). Not JSON → the raw text.
 */
function configTextToScan(raw: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return raw;
  }
  if (!parsed || typeof parsed !== "object") return raw;
  const { keys, ...rest } = parsed as { keys?: unknown } & Record<string, unknown>;
  const kept: Record<string, unknown> = {};
  if (keys && typeof keys === "object") {
    for (const [origin, value] of Object.entries(keys as Record<string, unknown>)) {
      if (typeof value === "string" && value.startsWith("svc_live_")) continue;
      kept[origin] = value;
    }
  }
  // origins are kept: a key must not hide in an origin name either
  return JSON.stringify({ ...rest, keys: kept, origins: Object.keys(keys ?? {}) });
}

/**
 * The secret scan of files: reads every regular file under `root` (state
 * files, partial metadata, lock records, downloads, config files) and throws, via the shared
 * `assertNoSecrets`, when any registered full API key or license key appears. A file named
 * `config.json` outside `.svc-dl/` is the config store: the API keys `auth login` stored per
 * origin are its only allowed secrets. Symlinks are not followed. Returns the number of files
 * scanned (0 when `root` does not exist).
 */
export function scanTreeForSecrets(root: string): number {
  if (!existsSync(root)) return 0;
  let files = 0;
  const visit = (path: string): void => {
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(path);
    } catch {
      return; // removed meanwhile
    }
    if (st.isDirectory()) {
      let names: string[];
      try {
        names = readdirSync(path);
      } catch {
        return;
      }
      for (const name of names) visit(join(path, name));
      return;
    }
    if (!st.isFile() || st.size > MAX_SCAN_BYTES) return;
    let text: string;
    try {
      text = readFileSync(path).toString("latin1");
    } catch {
      return;
    }
    files += 1;
    const isConfig = basename(path) === "config.json" && basename(dirname(path)) !== ".svc-dl";
    assertNoSecrets(isConfig ? configTextToScan(text) : text, `file ${path}`);
  };
  visit(root);
  return files;
}
