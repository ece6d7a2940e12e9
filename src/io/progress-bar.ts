import type { Writable } from "node:stream";
import cliProgress from "cli-progress";
import { type LiveRegion, type StderrLines, splitToWidth } from "./live-lines.js";
import { formatBytes } from "./progress-format.js";
import { renderBarLine } from "./progress-line.js";
import type { FileOutcome, FileProgress, TransferStart } from "./progress-types.js";
import { TransferStats } from "./transfer-stats.js";

/** Smallest gap between two bar updates, in ms (≤ 10 redraws a second). */
const REDRAW_MS = 100;

/**
 * cli-progress draws through this view of the stream: whether stderr is a terminal was decided
 * once, by the context (cli-contract "Streams and output"), not by the stream object.
 */
function terminalView(out: Writable, columns: () => number): NodeJS.WritableStream {
  const view = {
    isTTY: true,
    get columns() {
      return columns();
    },
    write: (chunk: string, cb?: () => void) => out.write(chunk, cb),
  };
  return view as unknown as NodeJS.WritableStream;
}

/**
 * Progress on a terminal: a cli-progress MultiBar whose live region is the file's bar (name,
 * percent, bytes, rate, ETA, fitted to `columns` by {@link renderBarLine}), with, in a sync
 * (a `pack 3/12` label), the overall line `pack 3/12, 40.0 MiB so far` above it. The region is
 * redrawn in place at most 10 times a second and cleared when the file ends, leaving one plain
 * line per finished file; so the overall line never stays in the scrollback. While the region
 * is drawn, the run's other stderr lines (`-v`, notes, warnings) reach it through
 * {@link StderrLines} and are printed above it (MultiBar's `log()`), never erased by a redraw.
 */
export class BarProgress implements FileProgress, LiveRegion {
  readonly #lines: StderrLines;
  readonly #now: () => number;
  #region: cliProgress.MultiBar | undefined;
  #bar: cliProgress.SingleBar | undefined;
  readonly #stats = new TransferStats();
  #lastDrawAt = 0;
  #counter = 0;
  #rate = 0;
  /** Bytes of the files finished so far in this run (the overall line of a sync). */
  #bytesSoFar = 0;
  readonly #columns: () => number;

  constructor(lines: StderrLines, now: () => number, columns?: number) {
    this.#lines = lines;
    this.#now = now;
    this.#columns = () => columns || (lines.out as { columns?: number }).columns || 80;
  }

  start(info: TransferStart): void {
    this.#clear();
    const now = this.#now();
    this.#stats.start(info, now);
    this.#lastDrawAt = now;
    this.#rate = 0;
    const region = new cliProgress.MultiBar({
      stream: terminalView(this.#lines.out, this.#columns),
      fps: 10,
      hideCursor: true,
      clearOnComplete: true,
      linewrap: false,
      // a line logged above the region moves every bar down one line: redraw them all
      forceRedraw: true,
    });
    const label = this.#stats.label;
    if (label) {
      const overall = () => `${label}, ${formatBytes(this.#bytesSoFar)} so far`;
      region.create(1, 0, undefined, { format: overall });
    }
    const known = this.#stats.sized;
    this.#bar = region.create(known ? (info.total ?? 1) : 1, known ? info.offset : 0, undefined, {
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
    });
    this.#region = region;
    this.#lines.attach(this);
    region.update();
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
    this.#clear();
    this.#bytesSoFar += info.bytes;
    this.#lines.write(this.#stats.finish(info, this.#now()));
  }

  stop(): void {
    this.#clear();
  }

  /** Prints a line above the region, in pieces that fit the terminal (line wrapping is off). */
  log(text: string, paint: (s: string) => string): void {
    const region = this.#region;
    if (!region) {
      this.#lines.out.write(`${paint(text)}\n`);
      return;
    }
    for (const piece of splitToWidth(text, this.#columns() - 1)) {
      region.log(`${paint(piece)}\n`);
      region.update();
    }
  }

  #clear(): void {
    const region = this.#region;
    if (!region) return;
    this.#region = undefined;
    this.#bar = undefined;
    this.#lines.detach(this);
    region.stop();
  }
}
