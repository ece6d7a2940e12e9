import type { Writable } from "node:stream";
import cliProgress from "cli-progress";
import type { FileOutcome, FileProgress } from "./progress.js";
import { formatBytes, formatRate } from "./progress-format.js";
import { type TransferStart, TransferStats } from "./transfer-stats.js";

/** Smallest gap between two bar updates, in ms (≤ 10 redraws a second). */
const REDRAW_MS = 100;

/**
 * A cli-progress bar on a terminal (name, percent, bytes, rate, ETA), redrawn at most 10 times
 * a second so it costs no throughput. `stop()` clears the bar and shows the cursor again; a
 * finished file leaves one plain line.
 */
export class BarProgress implements FileProgress {
  readonly #out: Writable;
  readonly #now: () => number;
  #bar: cliProgress.SingleBar | undefined;
  readonly #stats = new TransferStats();
  #lastDrawAt = 0;
  #counter = 0;

  constructor(out: Writable, now: () => number) {
    this.#out = out;
    this.#now = now;
  }

  start(info: TransferStart): void {
    this.#clearBar();
    const now = this.#now();
    this.#stats.start(info, now);
    this.#lastDrawAt = now;
    const prefix = info.label ? `${info.label}  ` : "";
    const known = this.#stats.sized;
    this.#bar = new cliProgress.SingleBar({
      stream: this.#out as NodeJS.WritableStream,
      format: known
        ? `${prefix}{name} |{bar}| {percentage}% {done}/{size} {rate} ETA {eta_formatted}`
        : `${prefix}{name} {done} {rate}`,
      fps: 10,
      hideCursor: true,
      clearOnComplete: true,
      barsize: 24,
      etaBuffer: 50,
      linewrap: false,
      barCompleteChar: "█",
      barIncompleteChar: "░",
    });
    this.#bar.start(known ? (info.total ?? 1) : 1, known ? info.offset : 0, this.#payload(0));
  }

  advance(bytes: number): void {
    this.#stats.add(bytes);
    if (++this.#counter % 16 !== 0) return;
    const now = this.#now();
    if (now - this.#lastDrawAt < REDRAW_MS) return;
    this.#lastDrawAt = now;
    this.#bar?.update(
      this.#stats.sized ? this.#stats.bytes : 0,
      this.#payload(this.#stats.rate(now)),
    );
  }

  done(info: { name: string; bytes: number; resumedFrom: number; outcome: FileOutcome }): void {
    this.#clearBar();
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

  #payload(rate: number): Record<string, string> {
    return {
      name: this.#stats.name,
      done: formatBytes(this.#stats.bytes),
      size: this.#stats.total === undefined ? "?" : formatBytes(this.#stats.total),
      rate: formatRate(rate),
    };
  }
}
