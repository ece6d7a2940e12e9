import type { Writable } from "node:stream";
import cliProgress from "cli-progress";
import { formatBytes } from "./progress-format.js";
import { renderBarLine } from "./progress-line.js";
import type { FileOutcome, FileProgress, TransferStart } from "./progress-types.js";
import { TransferStats } from "./transfer-stats.js";

/** Smallest gap between two bar updates, in ms (≤ 10 redraws a second). */
const REDRAW_MS = 100;

/**
 * A cli-progress bar on a terminal (name, percent, bytes, rate, ETA, fitted to `columns` by
 * {@link renderBarLine}), redrawn at most 10 times a second so it costs no throughput. With a
 * label (`pack 3/12` in a sync) a line above the bar gives the overall position and the bytes
 * so far. `stop()` clears the bar and shows the cursor again; a finished file leaves one plain
 * line.
 */
export class BarProgress implements FileProgress {
  readonly #out: Writable;
  readonly #now: () => number;
  #bar: cliProgress.SingleBar | undefined;
  readonly #stats = new TransferStats();
  #lastDrawAt = 0;
  #counter = 0;
  #rate = 0;
  /** Bytes of the files finished so far in this run (the overall line of a sync). */
  #bytesSoFar = 0;
  #lastLabel: string | undefined;
  readonly #columns: () => number;

  constructor(out: Writable, now: () => number, columns?: number) {
    this.#out = out;
    this.#now = now;
    this.#columns = () => columns || (out as { columns?: number }).columns || 80;
  }

  start(info: TransferStart): void {
    this.#clearBar();
    const now = this.#now();
    this.#stats.start(info, now);
    this.#lastDrawAt = now;
    const label = this.#stats.label;
    if (label && label !== this.#lastLabel) {
      this.#lastLabel = label;
      this.#out.write(`${label}, ${formatBytes(this.#bytesSoFar)} so far\n`);
    }
    const known = this.#stats.sized;
    this.#rate = 0;
    this.#bar = new cliProgress.SingleBar({
      stream: this.#out as NodeJS.WritableStream,
      format: () =>
        renderBarLine(
          {
            name: this.#stats.name,
            bytes: this.#stats.bytes,
            total: known ? this.#stats.total : undefined,
            rate: this.#rate,
          },
          this.#columns(),
        ),
      fps: 10,
      hideCursor: true,
      clearOnComplete: true,
      linewrap: false,
    });
    this.#bar.start(known ? (info.total ?? 1) : 1, known ? info.offset : 0);
  }

  advance(bytes: number): void {
    this.#stats.add(bytes);
    if (++this.#counter % 16 !== 0) return;
    const now = this.#now();
    if (now - this.#lastDrawAt < REDRAW_MS) return;
    this.#lastDrawAt = now;
    this.#rate = this.#stats.rate(now);
    this.#bar?.update(this.#stats.sized ? this.#stats.bytes : 0);
  }

  done(info: { name: string; bytes: number; resumedFrom: number; outcome: FileOutcome }): void {
    this.#clearBar();
    this.#bytesSoFar += info.bytes;
    this.#out.write(`${this.#stats.finish(info, this.#now())}\n`);
  }

  stop(): void {
    this.#clearBar();
  }

  #clearBar(): void {
    if (!this.#bar) return;
    const bar = this.#bar;
    this.#bar = undefined;
    bar.stop();
  }
}
