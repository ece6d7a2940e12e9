import { randomBytes } from "node:crypto";
import { chmodSync, readdirSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { systemClock } from "../clock.js";
import { FileSystemError } from "../errors/file-system-error.js";
import { fsError } from "../errors/fs-error.js";
import { interruptedBy } from "../errors/interrupted-error.js";
import { removeTree } from "../io/remove-tree.js";
import {
  lstatIfExists,
  PRIVATE_DIR_MODE,
  readRegularFile,
  removeEntry,
  writePrivateFileAtomic,
} from "../io/safe-fs.js";
import type { Clock } from "../model.js";
import { takeLockDir } from "./lock-dir.js";
import { ensureOutputDir, stateDirOf } from "./state.js";

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

/** Options of `OutputDir.open`: the lock's, and whether to take it. */
export interface OpenOptions extends LockOptions {
  /**
   * false: the caller already holds the lock of a directory containing this one (install's
   * staging directory); DIR and its `.svc-dl/` are created and checked, nothing is locked.
   */
  lock?: boolean;
}

/** Options of {@link acquireDirLock}. */
export interface LockOptions {
  /** `--wait-lock`: seconds to wait for another run's lock before `locked`; default 0 (at once). */
  waitSeconds?: number;
  /** Aborts a wait (SIGINT/SIGTERM): throws InterruptedError. */
  signal?: AbortSignal;
  /** The run's clock (its `now` and `sleep` time the wait); default the system clock. */
  clock?: Clock | undefined;
  /** Called once when the lock is held elsewhere and this call starts to wait (for a notice). */
  onWait?: (line: string) => void;
}

/** How often a waiting run looks at the lock again, in ms. */
export const LOCK_POLL_MS = 250;

/**
 * Locks output directory `dir` for writing (cli-contract "Downloads": a second run on the same
 * directory exits 8 with `locked`, or with `--wait-lock SECONDS` waits up to that long first).
 * Creates `dir` (bounded mkdir) and `<dir>/.svc-dl/` (0700, checked: see `ensureStateDir`).
 * The lock is the directory `<dir>/.svc-dl/lock` ({@link takeLockDir}: an atomic `mkdir`, its
 * mtime refreshed while held, stale after 10 s). A lock whose owner record names a process on
 * this host that no longer exists (SIGKILL) is taken over at once. Waiting polls every {@link LOCK_POLL_MS} ms
 * on a timer (no busy loop). Throws FileSystemError `locked` (exit 8) when another live run
 * still holds it, `unsafe_state_dir`, an exit-8 error when the directory cannot be created,
 * and InterruptedError when `signal` aborts the wait.
 */
export async function acquireDirLock(dir: string, opts: LockOptions = {}): Promise<DirLock> {
  ensureOutputDir(dir);
  const stateDir = stateDirOf(dir);
  const lockPath = join(stateDir, "lock");
  const ownerPath = join(stateDir, "lock-owner.json");
  // Only a directory is a lock; a planted link or file is removed.
  const planted = lstatIfExists(lockPath);
  if (planted && !planted.isDirectory()) removeEntry(lockPath);
  const clock = opts.clock ?? systemClock;
  const deadline = clock.now() + Math.max(0, opts.waitSeconds ?? 0) * 1000;
  let release: () => Promise<void>;
  let waiting = false;
  const owner: LockOwner = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  // The intent record exists before the lock does, so a run killed between taking the lock and
  // writing its owner record leaves a dead intent: the next run may take that lock over at once.
  // Named per run, not per process: two runs of one process (library callers) each have theirs.
  const intentName = `${INTENT_PREFIX}${process.pid}-${randomBytes(4).toString("hex")}`;
  const intentPath = join(stateDir, intentName);
  // It is written only when the lock looks free (or is taken over), so a run that finds the
  // directory locked changes nothing in it.
  const markIntent = (): void => {
    writeRecord(intentPath, owner);
  };
  for (;;) {
    if (opts.signal?.aborted) throw interruptedBy(opts.signal);
    if (lstatIfExists(lockPath) === undefined) markIntent();
    const attempt = await tryLock(stateDir, lockPath, ownerPath, markIntent, intentName);
    if (attempt.release) {
      release = attempt.release;
      break;
    }
    removeEntry(intentPath);
    const left = deadline - clock.now();
    if (left <= 0) throw lockedError(dir, attempt.owner);
    if (!waiting) {
      waiting = true;
      opts.onWait?.(
        `waiting up to ${Math.ceil(left / 1000)} s for another svc-dl run${ownerText(attempt.owner)} to release ${dir}`,
      );
    }
    try {
      await clock.sleep(Math.min(LOCK_POLL_MS, left), opts.signal);
    } catch (err) {
      if (opts.signal?.aborted) throw interruptedBy(opts.signal);
      throw err;
    }
  }
  try {
    chmodSync(lockPath, PRIVATE_DIR_MODE);
  } catch {
    // the lock works whatever its mode; .svc-dl itself is private
  }
  // Without an owner record the lock still works; the live intent then stands for it.
  if (writeRecord(ownerPath, owner)) removeEntry(intentPath);
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
      if (readOwner(ownerPath)?.pid === process.pid) removeEntry(ownerPath);
      removeEntry(intentPath);
    },
  };
}

/** One try: the release function, or the current owner (if known) of a lock held elsewhere. */
async function tryLock(
  stateDir: string,
  lockPath: string,
  ownerPath: string,
  markIntent: () => void,
  intentName: string,
): Promise<{ release?: () => Promise<void>; owner?: LockOwner | undefined }> {
  for (let takeover = 0; takeover < 2; takeover++) {
    let release: (() => void) | undefined;
    try {
      release = takeLockDir(lockPath, () => {
        const holder = readOwner(ownerPath);
        return holder !== undefined && holder.host === hostname() && isAlive(holder.pid);
      });
    } catch (err) {
      throw fsError(`cannot lock ${stateDir}`, err);
    }
    if (release) {
      const taken = release;
      return { release: async () => taken() };
    }
    const owner = readOwner(ownerPath);
    const orphan = !owner && acquirerDied(stateDir, intentName);
    if (takeover > 0 || (!orphan && (!owner || owner.host !== hostname() || isAlive(owner.pid)))) {
      return { owner };
    }
    // The holder was killed without releasing: take the lock over (once). Our intent comes
    // first, so a run killed anywhere in the takeover still leaves a record naming a dead
    // process beside the lock (removing the dead owner first left, for a moment, a lock with
    // no record at all, which the next run had to treat as held).
    markIntent();
    removeEntry(ownerPath);
    try {
      removeTree(lockPath); // iterative: a deep tree planted in the lock cannot overflow the stack
    } catch {
      return { owner };
    }
  }
  return {};
}

/** Name prefix of the intent records (`lock-intent-<pid>-<random>`) runs write before taking the lock. */
const INTENT_PREFIX = "lock-intent-";

/** Writes an owner or intent record privately (never through a link); false when it failed. */
function writeRecord(path: string, owner: LockOwner): boolean {
  try {
    // not flushed: it only names a process of this boot (docs/performance.md "Durability")
    writePrivateFileAtomic(path, `${JSON.stringify(owner)}\n`, { durable: false });
    return true;
  } catch {
    return false;
  }
}

/**
 * For a lock without an owner record: true when every other run's intent record names a
 * process on this host that no longer exists (at least one), i.e. the run that took the lock
 * was killed before it could write its owner record. Dead intents are removed. A live or
 * foreign-host intent, or none at all (an older svc-dl), means the lock is held.
 */
function acquirerDied(stateDir: string, ownIntent: string): boolean {
  let names: string[];
  try {
    names = readdirSync(stateDir).filter((n) => n.startsWith(INTENT_PREFIX));
  } catch {
    return false;
  }
  const others = names.filter((n) => n !== ownIntent);
  if (others.length === 0) return false;
  for (const name of others) {
    const intent = readOwner(join(stateDir, name));
    if (!intent || intent.host !== hostname() || isAlive(intent.pid)) return false;
  }
  for (const name of others) removeEntry(join(stateDir, name));
  return true;
}

/**
 * Who holds `dir`'s lock, read-only (for `doctor`): undefined when there is no lock; else its
 * owner text (`pid N on HOST since T`, from the untrusted owner record, or "unknown owner")
 * and whether it is live (a dead owner on this host is taken over by the next run).
 */
export function lockHolder(dir: string): { owner: string; live: boolean } | undefined {
  const stateDir = stateDirOf(dir);
  if (!lstatIfExists(join(stateDir, "lock"))?.isDirectory()) return undefined;
  const owner = readOwner(join(stateDir, "lock-owner.json"));
  if (!owner) return { owner: "unknown owner", live: true };
  const live = owner.host !== hostname() || isAlive(owner.pid);
  return { owner: `pid ${owner.pid} on ${owner.host} since ${owner.since}`, live };
}

function readOwner(path: string): LockOwner | undefined {
  try {
    const text = readRegularFile(path, 4096);
    if (text === undefined) return undefined;
    const raw = JSON.parse(text) as Partial<LockOwner>;
    if (Number.isSafeInteger(raw.pid) && typeof raw.host === "string") {
      return { pid: raw.pid as number, host: raw.host, since: String(raw.since ?? "") };
    }
  } catch {
    // fall through
  }
  return undefined;
}

function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  if (pid <= 0) return true; // never signal a process group; treat as held
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function ownerText(owner: LockOwner | undefined): string {
  return owner ? ` (pid ${owner.pid} since ${owner.since})` : "";
}

function lockedError(dir: string, owner: LockOwner | undefined): FileSystemError {
  return new FileSystemError(`another svc-dl run${ownerText(owner)} is writing to ${dir}`, {
    code: "locked",
  });
}
