import { existsSync, lstatSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { buffer } from "node:stream/consumers";
import yauzl from "yauzl";
import { sha256, sha256Of } from "../helpers/files.js";
import { stateItems } from "../reliability/helpers/harness.js";
import type { Case } from "./case.js";
import type { Place } from "./runner.js";
import type { ServedItem } from "./world.js";

// The promise every case checks after every run (cli-contract "Integrity" and "Downloads"):
// what is under a final name holds exactly the served bytes, a failed item leaves no final
// file, records (state, lock, cache) name the bytes on disk. Each check returns the first
// problem it finds, as a sentence, or undefined.

/** One item of a command's `--json` document, as far as these checks read it. */
interface DocItem {
  slug: string;
  kind?: string;
  edition?: string | null;
  status: string;
  path?: string | null;
}

/** The items of a `--json` document on stdout, or [] when there is none (an interrupted run). */
export function docItems(stdout: Buffer): DocItem[] {
  try {
    const doc = JSON.parse(stdout.toString("utf8")) as { items?: DocItem[] };
    return Array.isArray(doc.items) ? doc.items : [];
  } catch {
    return [];
  }
}

/** The name of the directory a pack is extracted into: its file name without `.zip`. */
function extractedName(item: ServedItem): string {
  return item.filename.replace(/\.zip$/, "");
}

/** Every regular file under `root`, by path relative to it; anything else is a problem. */
function filesUnder(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const st = lstatSync(path);
      if (st.isDirectory()) walk(path);
      else if (st.isFile()) out.set(relative(root, path), path);
      else throw new Error(`${relative(root, path)} is neither a file nor a directory`);
    }
  };
  walk(root);
  return out;
}

/** Whether the extracted directory holds exactly the archive's files with their bytes. */
async function extractedProblem(zipPath: string, dir: string): Promise<string | undefined> {
  const zip = await yauzl.fromBufferPromise(readFileSync(zipPath), { lazyEntries: true });
  const want = new Map<string, Buffer>();
  for await (const entry of zip.eachEntry()) {
    if (entry.fileName.endsWith("/")) continue;
    want.set(entry.fileName, await buffer(await zip.openReadStreamPromise(entry)));
  }
  const have = filesUnder(dir);
  for (const [name, data] of want) {
    const path = have.get(name);
    if (path === undefined) return `${name} of the archive was not extracted`;
    if (sha256(readFileSync(path)) !== sha256(data)) return `extracted ${name} differs`;
  }
  for (const name of have.keys()) {
    if (!want.has(name)) return `${name} was extracted but is not in the archive`;
  }
  return undefined;
}

/**
 * The directory's promise after any run: every entry beside `.svc-dl/` is an item's file
 * holding exactly its served bytes (or, with `--extract`, its extracted directory holding
 * exactly the archive's files), every state record matches the bytes on disk, no refused item
 * has a file, and no item the run's document calls failed has one.
 */
export async function dirProblem(
  c: Case,
  place: Place,
  items: readonly ServedItem[],
  stdout: Buffer,
): Promise<string | undefined> {
  if (c.stdout || !existsSync(place.outDir)) return undefined;
  const byName = new Map(items.map((i) => [i.filename, i]));
  const byDir = new Map(items.map((i) => [extractedName(i), i]));
  for (const name of readdirSync(place.outDir)) {
    if (name === ".svc-dl") continue;
    const path = join(place.outDir, name);
    const item = byName.get(name);
    if (item?.denied) return `${name}: the refused item has a file`;
    if (item !== undefined) {
      if (!lstatSync(path).isFile()) return `${name} is not a regular file`;
      const sha = sha256Of(path);
      if (sha !== item.sha256 && !(item.mayKeepPrevious && sha === item.previousSha256)) {
        if (sha === item.previousSha256) {
          return `${name} holds the version before the new one, not the served file`;
        }
        return `${name} holds bytes that are not the served file (SHA-256 ${sha})`;
      }
      continue;
    }
    const packItem = byDir.get(name);
    if (!c.extract || packItem === undefined || !lstatSync(path).isDirectory()) {
      return `${name}: not a file of any item`;
    }
    const zipPath = join(place.outDir, packItem.filename);
    if (!existsSync(zipPath)) return `${name}/ is extracted but its archive is not in place`;
    const problem = await extractedProblem(zipPath, path);
    if (problem) return `${name}/: ${problem}`;
  }
  for (const [name, record] of Object.entries(stateItems(place.outDir))) {
    const path = join(place.outDir, name);
    if (!existsSync(path)) continue;
    if (lstatSync(path).size !== record.size || sha256Of(path) !== record.sha256) {
      return `${name}: the state records other bytes than the file holds`;
    }
    const item = items.find((i) => i.filename === name);
    const kept = item?.mayKeepPrevious === true && record.sha256 === item.previousSha256;
    if (item && record.sha256 !== item.sha256 && !kept) {
      return `${name}: the state records other bytes`;
    }
  }
  for (const d of docItems(stdout)) {
    if (d.status === "failed" && d.path && existsSync(d.path)) {
      return `${d.slug} failed but left ${d.path}`;
    }
  }
  return undefined;
}

/** Whether every item the account may download is in place (and extracted with `--extract`). */
export function missingItem(
  c: Case,
  place: Place,
  items: readonly ServedItem[],
): string | undefined {
  for (const item of items) {
    if (item.denied) continue;
    if (!existsSync(join(place.outDir, item.filename))) return `${item.filename} is missing`;
    if (c.extract && item.ref.kind === "pack") {
      if (!existsSync(join(place.outDir, extractedName(item)))) {
        return `${item.filename} was not extracted`;
      }
    }
  }
  return undefined;
}

/** `-o -`: stdout holds the served bytes when the run succeeded, else a prefix of them. */
export function stdoutProblem(out: Buffer, served: Buffer, succeeded: boolean): string | undefined {
  if (succeeded) {
    return out.equals(served) ? undefined : `stdout (${out.length} bytes) is not the served file`;
  }
  if (out.length > served.length) return `stdout holds ${out.length} bytes, more than served`;
  return out.equals(served.subarray(0, out.length))
    ? undefined
    : `stdout (${out.length} bytes) is not a prefix of the served file`;
}

/** `install`: every lock entry names its served bytes; every cache entry hashes to its name. */
export function installRecordsProblem(
  place: Place,
  items: readonly ServedItem[],
): string | undefined {
  const lockPath = join(place.cwd, "svc-dl.lock");
  if (existsSync(lockPath)) {
    const lock = JSON.parse(readFileSync(lockPath, "utf8")) as {
      items: { slug: string; file: string; sha256: string; size: number }[];
    };
    for (const entry of lock.items) {
      const item = items.find((i) => i.filename === entry.file);
      if (!item) return `svc-dl.lock records ${entry.file}, no item of the manifest`;
      if (entry.sha256 !== item.sha256 || entry.size !== item.size) {
        return `svc-dl.lock records other bytes for ${entry.file}`;
      }
    }
  }
  const store = join(place.cache, "sha256");
  if (existsSync(store)) {
    for (const [name, path] of filesUnder(store)) {
      const hash = name.split("/").at(-1) ?? "";
      if (!/^[0-9a-f]{64}$/.test(hash)) continue;
      if (sha256Of(path) !== hash) return `cache entry ${name} does not hash to its name`;
    }
  }
  return undefined;
}
