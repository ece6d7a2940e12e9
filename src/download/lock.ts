import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { FileSystemError } from "../errors/file-system-error.js";
import { makeDirectory } from "./mkdir.js";
import { stateDirOf } from "./state.js";
import { fsError } from "./writer.js";

/** A held directory lock; `release()` is idempotent and never throws. */
export interface DirLock {
  readonly dir: string;
  release(): Promise<void>;
}

/** The lock's owner record, so a lock left by a killed process on this host can be taken over. */
interface LockOwner {
  pid: number;
  host: string;
  since: string;
}

/**
 * Locks output directory `dir` for writing (cli-contract "Downloads": a second run on the same
 * directory exits 8 with `locked`). Uses proper-lockfile (an atomic `mkdir` of
 * `<dir>/.svc-dl/lock`, its mtime refreshed while held; stale after 10 s). A lock whose owner
 * record names a process on this host that no longer exists (SIGKILL) is taken over at once.
 * Creates `<dir>/.svc-dl/`. Throws FileSystemError `locked` (exit 8) when another live run
 * holds it, or an exit-8 error when the directory cannot be created.
 */
export async function acquireDirLock(dir: string): Promise<DirLock> {
  const stateDir = stateDirOf(dir);
  try {
    makeDirectory(stateDir);
  } catch (err) {
    throw fsError(`cannot create ${stateDir}`, err);
  }
  const lockfile = await import("proper-lockfile");
  const lockPath = join(stateDir, "lock");
  const ownerPath = join(stateDir, "lock-owner.json");
  const options = {
    lockfilePath: lockPath,
    realpath: false,
    retries: 0,
    stale: 10_000,
    onCompromised: () => {
      // Another process removed our lock (it judged it stale); nothing safe to do mid-write
      // but carry on: the atomic renames still keep every final file whole.
    },
  };
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(stateDir, options);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ELOCKED") {
      throw fsError(`cannot lock ${dir}`, err);
    }
    const owner = readOwner(ownerPath);
    if (!owner || owner.host !== hostname() || isAlive(owner.pid)) {
      throw lockedError(dir, owner);
    }
    // The holder was killed without releasing: take the lock over.
    rmSync(lockPath, { recursive: true, force: true });
    rmSync(ownerPath, { force: true });
    try {
      release = await lockfile.lock(stateDir, options);
    } catch (again) {
      if ((again as NodeJS.ErrnoException).code === "ELOCKED") throw lockedError(dir, undefined);
      throw fsError(`cannot lock ${dir}`, again);
    }
  }
  const owner: LockOwner = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  try {
    writeFileSync(ownerPath, `${JSON.stringify(owner)}\n`);
  } catch {
    // Without an owner record the lock still works; it just cannot be taken over early.
  }
  let released = false;
  return {
    dir,
    async release() {
      if (released) return;
      released = true;
      // Lock first, owner record second: a run killed in between leaves only a record naming a
      // dead pid, which the next run overwrites. The other order left a lock without an owner,
      // which no run may take over early (exit 8 `locked` for 10 s).
      await release().catch(() => undefined);
      if (readOwner(ownerPath)?.pid === process.pid) rmSync(ownerPath, { force: true });
    },
  };
}

function readOwner(path: string): LockOwner | undefined {
  try {
    const raw = JSON.parse(readFileSync(path, "utf8")) as Partial<LockOwner>;
    if (typeof raw.pid === "number" && typeof raw.host === "string") {
      return { pid: raw.pid, host: raw.host, since: String(raw.since ?? "") };
    }
  } catch {
    // fall through
  }
  return undefined;
}

function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function lockedError(dir: string, owner: LockOwner | undefined): FileSystemError {
  const who = owner ? ` (pid ${owner.pid} since ${owner.since})` : "";
  return new FileSystemError(`another svc-dl run${who} is writing to ${dir}`, {
    code: "locked",
    hint: "Wait for the other run to finish, or use another directory. A lock left by a crashed run on another host expires after 10 s.",
  });
}
