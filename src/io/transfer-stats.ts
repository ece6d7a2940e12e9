import { finishedLine } from "./progress-format.js";
import type { FileOutcome, TransferStart } from "./progress-types.js";
import { terminalText } from "./terminal-text.js";

/**
 * The bookkeeping both progress renderers share: the current file, bytes so far, the rate of
 * this attempt (bytes per second since its start, offset excluded), and the bytes transferred
 * across every attempt of the file for its finished line. Times in milliseconds. The file name
 * and label are kept escaped by `terminalText()` (cli-contract "Untrusted text, paths and
 * caches"): the bar, the plain lines and the finished line print only escaped names.
 */
export class TransferStats {
  name = "";
  label: string | undefined;
  total: number | undefined;
  offset = 0;
  /** Bytes in the file: the offset plus what this attempt received. */
  bytes = 0;
  #startedAt = 0;
  #firstStartedAt: number | undefined;
  #transferred = 0;

  /** Begins an attempt (the first, or a retry/resume of the same file). */
  start(info: TransferStart, now: number): void {
    this.name = terminalText(info.name);
    this.label = info.label === undefined ? undefined : terminalText(info.label);
    this.total = info.total;
    this.offset = info.offset;
    this.bytes = info.offset;
    this.#startedAt = now;
    this.#firstStartedAt ??= now;
  }

  /** Counts received bytes. */
  add(n: number): void {
    this.bytes += n;
    this.#transferred += n;
  }

  /** True when the file's final size is known. */
  get sized(): boolean {
    return this.total !== undefined && this.total > 0;
  }

  /** Bytes per second of this attempt. */
  rate(now: number): number {
    const seconds = (now - this.#startedAt) / 1000;
    return seconds > 0 ? (this.bytes - this.offset) / seconds : 0;
  }

  /** The one line for a finished file (name, size, time, rate); resets the per-file totals. */
  finish(
    info: { name: string; bytes: number; resumedFrom: number; outcome: FileOutcome },
    now: number,
  ): string {
    const seconds = this.#firstStartedAt === undefined ? 0 : (now - this.#firstStartedAt) / 1000;
    const line = finishedLine({
      ...info,
      name: terminalText(info.name),
      transferred: this.#transferred,
      seconds,
      label: this.label,
    });
    this.#firstStartedAt = undefined;
    this.#transferred = 0;
    // the next file's label comes with its start(); an up-to-date file has none
    this.label = undefined;
    return line;
  }
}
