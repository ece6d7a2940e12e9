import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { BY_HASH, CACHE_LAYOUT, cacheRefusals } from "../../cache/layout.js";
import { cacheDirFrom } from "../../cache/location.js";
import { checkConfigSafety } from "../../config/store.js";
import { type HintContext, renderHint } from "../../errors/codes.js";
import { findForeign } from "../../io/owned-dir.js";
import { checkPrivateDir } from "../../io/safe-fs.js";
import { lockHolder } from "../../outdir/lock.js";
import { type DoctorCheck, failure } from "./doctor-check.js";

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Config directory and file safety (cli-contract "Configuration and credentials"): the same
 * check the config store makes before reading a key, without creating anything.
 */
export async function configCheck(env: Env, hints: HintContext): Promise<DoctorCheck> {
  try {
    const { dir, file } = checkConfigSafety(env);
    const finding = file ? `${dir} and its config.json are private` : `${dir} (no config file yet)`;
    return { name: "config", status: "ok", finding, hint: null };
  } catch (err) {
    return failure("config", err, hints);
  }
}

/**
 * Cache directory safety and size (cli-contract "Untrusted text, paths and caches"): a
 * symlinked, shared or foreign cache fails as `install` would refuse it; a missing one is ok.
 */
export async function cacheCheck(env: Env, cwd: string, hints: HintContext): Promise<DoctorCheck> {
  const root = await cacheDirFrom(env, cwd);
  const refusals = cacheRefusals(root, "check");
  try {
    if (!checkPrivateDir(root, (problem) => refusals.unsafe(root, problem))) {
      return { name: "cache", status: "ok", finding: `${root} (not created yet)`, hint: null };
    }
    const foreign = findForeign(root, CACHE_LAYOUT);
    if (foreign) throw refusals.foreign(foreign.entry, foreign.why, foreign.unmarked);
    const { entries, bytes } = await cacheSize(root);
    const finding = `${root}: ${entries} entr${entries === 1 ? "y" : "ies"}, ${bytes} bytes`;
    return { name: "cache", status: "ok", finding, hint: null };
  } catch (err) {
    return failure("cache", err, hints);
  }
}

/** Entries and bytes below the cache's `sha256/` (lstat only: nothing is followed). */
async function cacheSize(root: string): Promise<{ entries: number; bytes: number }> {
  let entries = 0;
  let bytes = 0;
  const top = join(root, BY_HASH);
  let subs: string[] = [];
  try {
    subs = readdirSync(top);
  } catch {
    return { entries, bytes };
  }
  for (const sub of subs) {
    if (!lstatSync(join(top, sub)).isDirectory()) continue;
    for (const name of readdirSync(join(top, sub))) {
      const st = lstatSync(join(top, sub, name));
      if (!st.isFile()) continue;
      entries += 1;
      bytes += st.size;
    }
  }
  return { entries, bytes };
}

/** With DIR: who holds its lock (cli-contract "Downloads"); a live holder warns. */
export async function lockCheck(dir: string, hints: HintContext): Promise<DoctorCheck> {
  try {
    const held = lockHolder(dir);
    if (!held) return { name: "lock", status: "ok", finding: `${dir} is not locked`, hint: null };
    return held.live
      ? {
          name: "lock",
          status: "warn",
          finding: `held by another svc-dl run (${held.owner})`,
          hint: renderHint("locked", hints),
        }
      : {
          name: "lock",
          status: "ok",
          finding: `left by a run that died (${held.owner}); the next run takes it over`,
          hint: null,
        };
  } catch (err) {
    return failure("lock", err, hints);
  }
}
