import type { Writable } from "node:stream";
import { formatBytes, formatDuration, formatRate } from "./progress-format.js";
import type { FileOutcome, FileProgress, TransferStart } from "./progress-types.js";
import { TransferStats } from "./transfer-stats.js";

/**
 * Progress for logs (stderr not a TTY, or `--no-progress`): never an escape sequence. One line
 * per finished file and, while a file is transferring, at most one line every `heartbeatMs`
 * with percent, rate and ETA (cli-contract "Streams and output").
 */
export class PlainProgress implements FileProgress {
  readonly #out: Writable;
  readonly #heartbeatMs: number;
  readonly #now: () => number;
  readonly #stats = new TransferStats();
  #lastLineAt = 0;
  #counter = 0;

  readonly #prefix: () => string;

  /** `prefix` goes before every line (the `HH:MM:SS ` of a plain log). */
  constructor(
    out: Writable,
    opts: { heartbeatMs: number; now: () => number; prefix?: () => string },
  ) {
    this.#out = out;
    this.#prefix = opts.prefix ?? (() => "");
    this.#heartbeatMs = opts.heartbeatMs;
    this.#now = opts.now;
  }

  start(info: TransferStart): void {
    const now = this.#now();
    this.#stats.start(info, now);
    this.#lastLineAt = now;
  }

  advance(bytes: number): void {
    const stats = this.#stats;
    stats.add(bytes);
    // Look at the clock only every 64 chunks: this runs once per received chunk.
    if (++this.#counter % 64 !== 0) return;
    const now = this.#now();
    if (now - this.#lastLineAt < this.#heartbeatMs) return;
    this.#lastLineAt = now;
    const rate = stats.rate(now);
    const prefix = stats.label ? `${stats.label}  ` : "";
    if (stats.total !== undefined && stats.sized) {
      const percent = Math.floor((stats.bytes / stats.total) * 100);
      const eta = rate > 0 ? (stats.total - stats.bytes) / rate : Number.NaN;
      this.#line(
        `${prefix}${stats.name}  ${percent}% of ${formatBytes(stats.total)}  ${formatRate(rate)}  ETA ${formatDuration(eta)}`,
      );
    } else {
      this.#line(`${prefix}${stats.name}  ${formatBytes(stats.bytes)}  ${formatRate(rate)}`);
    }
  }

  done(info: { name: string; bytes: number; resumedFrom: number; outcome: FileOutcome }): void {
    this.#line(this.#stats.finish(info, this.#now()));
  }

  stop(): void {}

  #line(text: string): void {
    this.#out.write(`${this.#prefix()}${text}\n`);
  }
}
