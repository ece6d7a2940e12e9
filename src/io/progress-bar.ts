import type { Writable } from "node:stream";
import cliProgress from "cli-progress";
import type { FileOutcome, FileProgress } from "./progress.js";
import { finishedLine, formatBytes, formatRate } from "./progress-format.js";

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
  #name = "";
  #label: string | undefined;
  #total: number | undefined;
  #offset = 0;
  #bytes = 0;
  #startedAt = 0;
  #firstStartedAt: number | undefined;
  #transferred = 0;
  #lastDrawAt = 0;
  #counter = 0;

  constructor(out: Writable, now: () => number) {
    this.#out = out;
    this.#now = now;
  }

  start(info: { name: string; total: number | undefined; offset: number; label?: string }): void {
    this.#clearBar();
    const now = this.#now();
    this.#name = info.name;
    this.#label = info.label;
    this.#total = info.total;
    this.#offset = info.offset;
    this.#bytes = info.offset;
    this.#startedAt = now;
    this.#firstStartedAt ??= now;
    this.#lastDrawAt = now;
    const prefix = info.label ? `${info.label}  ` : "";
    const known = info.total !== undefined && info.total > 0;
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
    this.#bytes += bytes;
    this.#transferred += bytes;
    if (++this.#counter % 16 !== 0) return;
    const now = this.#now();
    if (now - this.#lastDrawAt < REDRAW_MS) return;
    this.#lastDrawAt = now;
    const seconds = (now - this.#startedAt) / 1000;
    const rate = seconds > 0 ? (this.#bytes - this.#offset) / seconds : 0;
    const known = this.#total !== undefined && this.#total > 0;
    this.#bar?.update(known ? this.#bytes : 0, this.#payload(rate));
  }

  done(info: { name: string; bytes: number; resumedFrom: number; outcome: FileOutcome }): void {
    this.#clearBar();
    const now = this.#now();
    const seconds = this.#firstStartedAt === undefined ? 0 : (now - this.#firstStartedAt) / 1000;
    this.#out.write(
      `${finishedLine({ ...info, transferred: this.#transferred, seconds, label: this.#label })}\n`,
    );
    this.#firstStartedAt = undefined;
    this.#transferred = 0;
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
      name: this.#name,
      done: formatBytes(this.#bytes),
      size: this.#total === undefined ? "?" : formatBytes(this.#total),
      rate: formatRate(rate),
    };
  }
}
