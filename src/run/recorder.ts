/**
 * The outcome of a run over several items (cli-contract "Operating unattended"): every
 * multi-item command (`packs sync`, `install`, several-slug `pack get`/`asset get`) feeds one
 * {@link RunRecorder}; the sinks (`--json` on a stop part-way, `--report`, `--metrics`,
 * `--on-item`, the GitHub step summary) read from it. Item statuses are open strings: a
 * command may add its own (`deferred`, `pruned`, …) without changing this module.
 */

/** One settled item as its command's `--json` document lists it. */
export interface RunItem {
  status: string;
  slug?: string;
  path?: string | null;
  bytes?: number | null;
  error?: { code: string; message?: string; request_id?: string | null } | null;
  [key: string]: unknown;
}

/** The `error` member of a document of a run that stopped part-way. */
export interface RunError {
  code: string;
  message: string;
  request_id: string | null;
  retryable: boolean;
  hint: string | null;
}

/** A run's JSON document: the command's own members, `items`, `summary`, then `complete`. */
export interface RunDocument {
  items: RunItem[];
  summary: Record<string, number>;
  complete: boolean;
  error?: RunError;
  [key: string]: unknown;
}

/**
 * How a command turns the items it settled into its own document, so that a run stopped
 * part-way reports the same shape (members, `summary` counters, human summary line) as a
 * complete run of that command, only with the items settled so far.
 */
export interface RunShape<I = RunItem, D extends ShapedDocument = ShapedDocument> {
  /** The command's `--json` document over `items` (its own members, `items`, `summary`). */
  document(items: I[]): D;
  /** The closing human line the command prints on stderr for `doc` (a document of this shape). */
  summaryLine?(doc: D): string;
}

/** What every command's document has. */
export interface ShapedDocument {
  items: unknown[];
  summary: object;
}

/** Statuses whose bytes came over the network in this run (`svc_dl_bytes_downloaded`). */
const FETCHED = new Set(["downloaded", "resumed", "repaired"]);

/**
 * Collects the items of one run as they settle. `settled` is called by the command's item
 * observer after the file is in place (and extracted); `onSettled` listeners (the `--on-item`
 * hook) run after it. Not thread-safe by design: one run, one recorder.
 */
export class RunRecorder {
  readonly command: string;
  /** The run's directory (DIR, the manifest's `dir`, `-o DIR`), once known. */
  dir: string;
  /** Members of the command's document known before the end (`dir`, `manifest`…), in order. */
  readonly head: Record<string, unknown> = {};
  readonly items: RunItem[] = [];
  /** ms since the epoch when the run began. */
  readonly startedAt: number;
  /** True once the run has planned its items: a stop from then on prints a partial document. */
  begun = false;
  #final: RunDocument | undefined;
  #shape: RunShape | undefined;
  readonly #listeners: ((item: RunItem) => void)[] = [];

  constructor(command: string, dir: string, startedAt: number) {
    this.command = command;
    this.dir = dir;
    this.startedAt = startedAt;
  }

  /** Marks the start of the items (after configuration, the directory lock and the plan). */
  begin(): void {
    this.begun = true;
  }

  /**
   * Gives the command's document shape (see {@link RunShape}); until then a stopped run's
   * document is {@link head}, the items and a count by status.
   */
  describe<I, D extends ShapedDocument>(shape: RunShape<I, D>): void {
    // the items are the ones the command settled, its documents the ones its shape built
    this.#shape = shape as unknown as RunShape;
  }

  /** The command's closing human line for `doc` (a document of this run), if it has one. */
  summaryLine(doc: RunDocument): string | undefined {
    return this.#shape?.summaryLine?.(doc);
  }

  /** Adds a listener called with each settled item. */
  onSettled(listener: (item: RunItem) => void): void {
    this.#listeners.push(listener);
  }

  /** Records one settled item (any object with a status string, as its document lists it). */
  settled(settledItem: { readonly status: string }): void {
    const item = settledItem as RunItem;
    this.begun = true;
    this.items.push(item);
    for (const listener of this.#listeners) listener(item);
  }

  /**
   * Marks the run complete (every item was tried) with the command's own document and returns
   * it with `"complete": true` appended: the document `--json` prints and `--report` writes.
   */
  complete<D extends ShapedDocument>(doc: D): D & { complete: true } {
    const full = { ...doc, complete: true as const };
    this.#final = full as unknown as RunDocument;
    return full;
  }

  /**
   * The document of the run: the complete one, else the command's document (its
   * {@link RunShape}) of the items settled so far with `"complete": false` and `error`.
   */
  document(error: RunError | undefined): RunDocument {
    if (this.#final) return this.#final;
    const own = this.#shape
      ? this.#shape.document([...this.items])
      : { ...this.head, items: [...this.items], summary: countByStatus(this.items) };
    return { ...own, complete: false, ...(error ? { error } : {}) } as RunDocument;
  }

  /** True once {@link complete} was called. */
  get isComplete(): boolean {
    return this.#final !== undefined;
  }

  /** Bytes fetched over the network by this run's items (downloaded, resumed, repaired). */
  bytesDownloaded(): number {
    let total = 0;
    for (const item of this.document(undefined).items) {
      if (FETCHED.has(item.status) && item.source !== "cache" && typeof item.bytes === "number") {
        total += item.bytes;
      }
    }
    return total;
  }
}

/** `{downloaded: 2, up_to_date: 1, failed: 1}`: one count per status (`-` becomes `_`). */
export function countByStatus(items: readonly RunItem[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) {
    const key = item.status.replaceAll("-", "_");
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** Item counts by their status as written (`up-to-date`), sorted by status. */
export function statusCounts(items: readonly RunItem[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(item.status, (counts.get(item.status) ?? 0) + 1);
  return [...counts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
