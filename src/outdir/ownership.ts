import { dirname, join } from "node:path";
import { FileSystemError } from "../errors/file-system-error.js";
import { hashRegularFile } from "../io/file-hash.js";
import { lstatIfExists } from "../io/safe-fs.js";
import { fileExists, specialFile } from "./errors.js";
import { fallbackFileName } from "./names.js";
import { type ItemRef, type StateFile, type StateItem, sameItem } from "./state.js";

/**
 * One name, one item (cli-contract "Downloads"): a file name in a directory belongs to one item
 * (kind, slug, edition), and no item replaces another item's file. An existing file that no
 * record owns is adopted when it holds exactly the served bytes, and refused (`file_exists`)
 * otherwise unless `--force`. Nothing here follows a symlink.
 */

/** Inputs of {@link pickFileName}. */
export interface NameChoice {
  state: StateFile;
  item: ItemRef;
  /** The name the user gave (`-o FILE`): used as it is. */
  fixed?: string | undefined;
  /** The name the server gave (Content-Disposition, already a safe base name), if any. */
  server?: string | undefined;
  /** `--force`: a user-chosen name may take over another item's record. */
  force: boolean;
  /** The directory (for messages). */
  dir: string;
}

/**
 * The file name `item` is written under: the user's `-o` name; else the server's name unless
 * another item holds it (recorded in the state, which also covers items fetched earlier in the
 * same run), then the fallback name (`<slug>.zip`, `<slug>-authoring.zip`, `<slug>.glb`).
 * Throws FileSystemError `file_exists` (exit 8) when both are held by other items, or when the
 * user's name is held by another item and `force` is not set.
 */
export function pickFileName(choice: NameChoice): string {
  const { state, item } = choice;
  if (choice.fixed !== undefined) {
    const holder = state.items[choice.fixed];
    if (holder && !sameItem(holder, item) && !choice.force) {
      throw heldByOther(join(choice.dir, choice.fixed), holder, item, true);
    }
    return choice.fixed;
  }
  const fallback = fallbackFileName(item.kind, item.slug, item.edition);
  const candidates = [choice.server ?? fallback, fallback];
  for (const name of candidates) {
    const holder = state.items[name];
    if (!holder || sameItem(holder, item)) return name;
  }
  const holder = state.items[fallback] as StateItem;
  throw heldByOther(join(choice.dir, fallback), holder, item, false);
}

function heldByOther(
  path: string,
  holder: StateItem,
  item: ItemRef,
  userChosen: boolean,
): FileSystemError {
  const who = `${holder.kind} ${holder.slug}${holder.edition ? ` (${holder.edition})` : ""}`;
  const edition = item.edition === "authoring" ? " --edition authoring" : "";
  return new FileSystemError(`${path} is the file of ${who}; no item replaces another's file`, {
    code: "file_exists",
    detail: userChosen
      ? { userChosen }
      : {
          getCommand: `svc-dl ${item.kind} get ${item.slug}${edition} -o ${join(dirname(path), "NAME")}`,
        },
  });
}

/**
 * What is at a destination before its bytes are fetched: `free` (nothing), `ours` (the file
 * this item's record names, even if it became a symlink: it is replaced, never followed), or
 * `foreign` (a regular file no record owns: compared once the served bytes are in). Throws
 * `special_file` (exit 8) for a device, FIFO or socket, even with `force`; `file_exists`
 * (exit 8) for a directory, and, without `force`, for a symlink no record owns (never read
 * through).
 */
export function checkDestination(
  dir: string,
  name: string,
  state: StateFile,
  item: ItemRef,
  force: boolean,
): "free" | "ours" | "foreign" {
  const path = join(dir, name);
  const st = lstatIfExists(path);
  if (!st) return "free";
  if (st.isDirectory()) throw fileExists(path, "is a directory");
  if (!st.isFile() && !st.isSymbolicLink()) throw specialFile(path);
  const rec = state.items[name];
  if (rec && sameItem(rec, item)) return "ours";
  if (rec && force) return "ours";
  if (!st.isFile()) {
    if (force) return "ours";
    throw fileExists(path, st.isSymbolicLink() ? "is a symbolic link" : "is not a regular file");
  }
  return "foreign";
}

/**
 * The last check before a complete download is renamed into place: `write` (rename over
 * whatever may be replaced) or `adopt` (an unrecorded regular file with exactly the served size
 * and SHA-256: recorded and left untouched). Throws `file_exists` (exit 8) for a directory, and
 * without `force` for an unrecorded file with other bytes or a special file.
 */
export async function settleDestination(
  dir: string,
  name: string,
  state: StateFile,
  item: ItemRef,
  served: { bytes: number; sha256: string },
  force: boolean,
): Promise<"write" | "adopt"> {
  const kind = checkDestination(dir, name, state, item, force);
  if (kind !== "foreign") return "write";
  const path = join(dir, name);
  let now: Awaited<ReturnType<typeof hashRegularFile>>;
  try {
    now = await hashRegularFile(path);
  } catch {
    now = undefined;
  }
  if (now && now.bytes === served.bytes && now.sha256 === served.sha256) return "adopt";
  if (force) return "write";
  throw fileExists(path, "exists with other bytes than the service serves");
}

/**
 * The record of a file just completed or adopted: `fixed_name` when the user chose the name
 * (`-o FILE`), unless it re-writes the item's own server-named record (`verify --repair`);
 * `mtime_ms` of the file as it will stay in place.
 */
export function recordOf(
  state: StateFile,
  item: ItemRef,
  facts: {
    file: string;
    bytes: number;
    etag: string | null;
    sha256: string;
    mtimeMs?: number | undefined;
  },
  userNamed: boolean,
): StateItem {
  const prev = state.items[facts.file];
  const ownServerName = prev !== undefined && sameItem(prev, item) && prev.fixed_name !== true;
  return {
    ...item,
    file: facts.file,
    size: facts.bytes,
    etag: facts.etag,
    sha256: facts.sha256,
    completed_at: new Date().toISOString(),
    ...(facts.mtimeMs !== undefined ? { mtime_ms: facts.mtimeMs } : {}),
    ...(userNamed && !ownServerName ? { fixed_name: true } : {}),
  };
}
