import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { DirSyncBatch } from "../io/durable.js";
import { lstatIfExists } from "../io/safe-fs.js";
import { type JournalOp, JournalWriter, removeJournal, replayJournal } from "./journal.js";
import { acquireDirLock, type DirLock, type OpenOptions } from "./lock.js";

export type { OpenOptions } from "./lock.js";

import { checkDestination, pickFileName, recordOf, settleDestination } from "./ownership.js";
import { type PartialPaths, partialPaths } from "./partial.js";
import { settleReplacements } from "./replacement.js";
import {
  ensureOutputDir,
  type ItemRef,
  readState,
  type StateFile,
  type StateItem,
  sameItem,
  stateDirOf,
  writeState,
} from "./state.js";

const itemKey = (item: ItemRef): string => `${item.kind}\0${item.slug}\0${item.edition ?? ""}`;

/**
 * One output directory and its `.svc-dl/` for the length of a run (cli-contract "Downloads",
 * "Untrusted text, paths and caches": Scale). Opened once: the lock is taken and the state read
 * (as untrusted input, see `readState`) once; every question afterwards ("what is recorded",
 * "which name does this item get", "where is its partial data") is answered from memory, and
 * {@link record} is the one place that applies the rule "a new file is recorded before it
 * appears, a replaced file after". One item has one record: recording an item drops its other
 * records. A run's first change rewrites the snapshot (naming a new generation), later ones
 * are appended to the journal (src/outdir/journal.ts), and {@link close} rewrites the snapshot
 * only when something followed the first one: a run placing one file writes it once.
 */
export class OutputDir {
  readonly dir: string;
  private readonly state: StateFile;
  /** File names per item, so lookups stay O(1) in directories of thousands of items. */
  private readonly byItem = new Map<string, Set<string>>();
  private readonly lock: DirLock | undefined;
  private readonly writable: boolean;
  private journal: JournalWriter | undefined;
  /** Generation of the snapshot of this run's first change, which the journal extends. */
  private generation: string | undefined;
  private journaled = false; // journal lines follow that snapshot: rewrite it on close
  private pending: JournalOp[] = [];
  /** The snapshot on disk is behind (a journal was found): rewrite it on close. */
  private stale: boolean;
  private closed = false;
  /** Directory flushes of files placed in this run, done once by {@link close} (src/io/durable.ts). */
  readonly dirSyncs = new DirSyncBatch();

  private constructor(
    dir: string,
    state: StateFile,
    writable: boolean,
    stale = false,
    lock?: DirLock,
  ) {
    this.dir = dir;
    this.state = { version: 1, items: state.items };
    [this.writable, this.stale, this.lock] = [writable, stale, lock];
    for (const rec of Object.values(state.items)) this.index(rec);
  }

  /**
   * Opens `dir` (absolute) for writing: creates it, locks it (see `acquireDirLock`; unless
   * `lock` is false) and reads its state and journal once. Throws FileSystemError `locked`,
   * `unsafe_state_dir` and other exit-8 errors, InterruptedError when a lock wait is aborted.
   */
  static async open(dir: string, opts: OpenOptions = {}): Promise<OutputDir> {
    let lock: DirLock | undefined;
    if (opts.lock === false) {
      ensureOutputDir(dir);
    } else {
      lock = await acquireDirLock(dir, opts);
    }
    try {
      const state = readState(dir);
      const hadJournal = replayJournal(dir, state.generation, state.items);
      const settled = settleReplacements(dir, state.items);
      return new OutputDir(dir, state, true, hadJournal || settled, lock);
    } catch (err) {
      await lock?.release();
      throw err;
    }
  }

  /**
   * Reads `dir` without locking or writing anything (`verify`, `packs sync --dry-run`); a
   * directory without `.svc-dl/` has no records. {@link record} and friends throw on it.
   * Throws FileSystemError `unsafe_state_dir` (exit 8).
   */
  static inspect(dir: string): OutputDir {
    const state = readState(dir);
    replayJournal(dir, state.generation, state.items);
    settleReplacements(dir, state.items);
    return new OutputDir(dir, state, false);
  }

  /** Absolute path of the file `name` in this directory. */
  pathOf = (name: string): string => join(this.dir, name);

  /** Path of `.svc-dl/` (staging and temp files live there). */
  get stateDir(): string {
    return stateDirOf(this.dir);
  }

  /** The record of the file `name`, if any. */
  recordedAt = (name: string): StateItem | undefined => this.state.items[name];

  /**
   * The record of `item`'s own file (not one the user named with `-o FILE`), if any
   * (cli-contract "Downloads").
   */
  recorded(item: ItemRef): StateItem | undefined {
    let best: StateItem | undefined;
    for (const name of this.byItem.get(itemKey(item)) ?? []) {
      const rec = this.state.items[name];
      if (!rec || rec.fixed_name === true) continue;
      if (!best || rec.completed_at > best.completed_at) best = rec;
    }
    return best;
  }

  /** Every record, in file-name order. */
  records(): StateItem[] {
    return Object.keys(this.state.items)
      .sort()
      .flatMap((name) => this.state.items[name] ?? []);
  }

  /** Where the partial data of `item` lives in `.svc-dl/` (see `partialPaths`, `readPartial`). */
  partial = (item: ItemRef): PartialPaths => partialPaths(this.dir, item);

  /**
   * The file name `item` gets (`pickFileName`: one name, one item) after checking what is
   * there (`checkDestination`). Throws FileSystemError `file_exists` / `special_file` (exit 8).
   */
  chooseName(
    item: ItemRef,
    names: { fixed?: string | undefined; server?: string | undefined },
    force: boolean,
  ): string {
    const { state, dir } = this;
    const { fixed, server } = names;
    const name = pickFileName({ state, item, fixed, server, force, dir });
    checkDestination(dir, name, state, item, force);
    return name;
  }

  /** The last check before complete bytes go to `name`: see `settleDestination`. */
  settle(
    name: string,
    item: ItemRef,
    served: { bytes: number; sha256: string },
    force: boolean,
  ): Promise<"write" | "adopt"> {
    return settleDestination(this.dir, name, this.state, item, served, force);
  }

  /** The record of a file just completed or adopted (see `recordOf`). */
  recordFor(item: ItemRef, facts: Parameters<typeof recordOf>[2], userNamed: boolean): StateItem {
    return recordOf(this.state, item, facts, userNamed);
  }

  /**
   * Records `rec` (dropping any other record of the same item). With `move` (the rename into
   * place): a new file is recorded on disk before it appears (a kill in between leaves a record
   * of a missing file, never an unrecorded file of ours); a replaced file's record is written
   * with `rec` as `next` before and `rec` after, so a kill at any instant leaves a record that
   * matches the file or none (src/outdir/replacement.ts). Without `move` (already in place:
   * adopted, found intact) it is written with the next change or by {@link close}. Throws what
   * `move` throws, and FileSystemError (exit 8) when the state cannot be written.
   */
  async record(rec: StateItem, move?: () => void): Promise<void> {
    this.assertWritable();
    if (!move) {
      this.change(rec);
      return;
    }
    // a dangling link at the destination counts as present
    const replacing = lstatIfExists(this.pathOf(rec.file)) !== undefined;
    const holder = this.state.items[rec.file];
    if (!replacing) this.change(rec);
    else if (holder) this.setRecord({ ...holder, next: rec });
    await this.persist();
    try {
      move();
    } catch (err) {
      if (replacing && holder) this.setRecord(holder); // still the old file
      throw err;
    }
    if (replacing) this.change(rec);
    await this.persist();
  }

  /** Sets the record of its file as it is (no other record dropped, same item). */
  private setRecord(rec: StateItem): void {
    this.state.items[rec.file] = rec;
    this.pending.push({ set: rec });
  }

  /** Writes the changes kept in memory now (an adopted download, worth not fetching again). */
  async flush(): Promise<void> {
    this.assertWritable();
    await this.persist();
  }

  /** Notes a new modification time (ms) of an intact recorded file (written later). */
  restamp(name: string, mtimeMs: number): void {
    this.assertWritable();
    const rec = this.state.items[name];
    if (!rec || rec.mtime_ms === mtimeMs) return;
    const next = { ...rec, mtime_ms: mtimeMs };
    this.state.items[name] = next;
    this.pending.push({ set: next });
  }

  /** Drops the record of `name` (`verify --forget-missing`); written by {@link close}. */
  forget(name: string): void {
    this.assertWritable();
    const rec = this.state.items[name];
    if (!rec) return;
    this.unindex(rec);
    delete this.state.items[name];
    this.pending.push({ drop: name });
  }

  /**
   * Writes what is still in memory (one snapshot, unless the first change's snapshot is still
   * the whole state), removes the journal and releases the lock. Idempotent; never throws: a
   * snapshot that cannot be written leaves the journal, which the next run replays.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      this.journal?.close();
      this.dirSyncs.flush();
      if (this.writable && (this.journaled || this.pending.length > 0 || this.stale)) {
        await writeState(this.dir, { version: 1, items: this.state.items });
        removeJournal(this.dir);
      }
    } catch {
      // the journal (if any) still holds every change
    } finally {
      await this.lock?.release();
    }
  }

  private change(rec: StateItem): void {
    const key = itemKey(rec);
    for (const name of [...(this.byItem.get(key) ?? [])]) {
      if (name === rec.file) continue;
      const old = this.state.items[name];
      if (old) this.unindex(old);
      delete this.state.items[name];
      this.pending.push({ drop: name });
    }
    const holder = this.state.items[rec.file];
    if (holder && !sameItem(holder, rec)) this.unindex(holder);
    this.state.items[rec.file] = rec;
    this.index(rec);
    this.pending.push({ set: rec });
  }

  private async persist(): Promise<void> {
    if (this.pending.length === 0) return;
    if (this.generation !== undefined) {
      this.journal ??= new JournalWriter(this.dir, this.generation);
      this.journal.append(this.pending);
      this.journaled = true;
    } else {
      // First write of the run: one snapshot naming a new generation; a journal extends it.
      const generation = randomBytes(8).toString("hex");
      await writeState(this.dir, { version: 1, items: this.state.items, generation });
      this.generation = generation;
      if (this.stale) removeJournal(this.dir); // it is in this snapshot now
      this.stale = false;
    }
    this.pending = [];
  }

  private index(rec: StateItem): void {
    const names = this.byItem.get(itemKey(rec)) ?? new Set<string>();
    this.byItem.set(itemKey(rec), names.add(rec.file));
  }

  private unindex(rec: StateItem): void {
    this.byItem.get(itemKey(rec))?.delete(rec.file);
  }

  private assertWritable(): void {
    if (!this.writable || this.closed) throw new Error(`${this.dir} is not open for writing`);
  }
}
