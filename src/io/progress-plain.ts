import type { Writable } from "node:stream";
import type { FileOutcome, FileProgress } from "./progress.js";
import { finishedLine, formatBytes, formatDuration, formatRate } from "./progress-format.js";

/**
 * Progress for logs (stderr not a TTY, or `--no-progress`): never an escape sequence. One line
 * per finished file and, while a file is transferring, at most one line every `heartbeatMs`
 * with percent, rate and ETA (cli-contract "Streams and output").
 */
export class PlainProgress implements FileProgress {
  readonly #out: Writable;
  readonly #heartbeatMs: number;
  readonly #now: () => number;
  #name = "";
  #label: string | undefined;
  #total: number | undefined;
  #offset = 0;
  #bytes = 0;
  #startedAt = 0;
  #firstStartedAt: number | undefined;
  #transferred = 0;
  #lastLineAt = 0;
  #counter = 0;

  constructor(out: Writable, opts: { heartbeatMs: number; now: () => number }) {
    this.#out = out;
    this.#heartbeatMs = opts.heartbeatMs;
    this.#now = opts.now;
  }

  start(info: { name: string; total: number | undefined; offset: number; label?: string }): void {
    const now = this.#now();
    this.#name = info.name;
    this.#label = info.label;
    this.#total = info.total;
    this.#offset = info.offset;
    this.#bytes = info.offset;
    this.#startedAt = now;
    this.#firstStartedAt ??= now;
    this.#lastLineAt = now;
  }

  advance(bytes: number): void {
    this.#bytes += bytes;
    this.#transferred += bytes;
    // Look at the clock only every 64 chunks: this runs once per received chunk.
    if (++this.#counter % 64 !== 0) return;
    const now = this.#now();
    if (now - this.#lastLineAt < this.#heartbeatMs) return;
    this.#lastLineAt = now;
    const seconds = (now - this.#startedAt) / 1000;
    const rate = seconds > 0 ? (this.#bytes - this.#offset) / seconds : 0;
    const prefix = this.#label ? `${this.#label}  ` : "";
    if (this.#total !== undefined && this.#total > 0) {
      const percent = Math.floor((this.#bytes / this.#total) * 100);
      const eta = rate > 0 ? (this.#total - this.#bytes) / rate : Number.NaN;
      this.#line(
        `${prefix}${this.#name}  ${percent}% of ${formatBytes(this.#total)}  ${formatRate(rate)}  ETA ${formatDuration(eta)}`,
      );
    } else {
      this.#line(`${prefix}${this.#name}  ${formatBytes(this.#bytes)}  ${formatRate(rate)}`);
    }
  }

  done(info: { name: string; bytes: number; resumedFrom: number; outcome: FileOutcome }): void {
    const now = this.#now();
    const seconds = this.#firstStartedAt === undefined ? 0 : (now - this.#firstStartedAt) / 1000;
    this.#line(
      finishedLine({ ...info, transferred: this.#transferred, seconds, label: this.#label }),
    );
    this.#firstStartedAt = undefined;
    this.#transferred = 0;
  }

  stop(): void {}

  #line(text: string): void {
    this.#out.write(`${text}\n`);
  }
}
