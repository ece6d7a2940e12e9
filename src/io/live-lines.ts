import type { Writable } from "node:stream";

/** A region of the terminal redrawn in place (the progress bar): it takes lines to print above itself. */
export interface LiveRegion {
  /** Prints `text` (one line, already escaped) above the region and redraws the region below it. */
  log(text: string, paint: (s: string) => string): void;
}

/**
 * The one writer of stderr's human lines (cli-contract "Streams and output"): a line is written
 * as it is, unless a live region (the progress bar on a terminal) is drawn, in which case the
 * region prints it above itself, so neither erases the other: a `-v` line or a warning written
 * during a download stays in the scrollback and the bar keeps its place below it.
 */
export class StderrLines {
  readonly out: Writable;
  #live: LiveRegion | undefined;

  constructor(out: Writable) {
    this.out = out;
  }

  /** Writes one line (`text` without its newline, already escaped), painted by `paint`. */
  write(text: string, paint: (s: string) => string = String): void {
    if (this.#live) this.#live.log(text, paint);
    else this.out.write(`${paint(text)}\n`);
  }

  /** From now on lines go through `region` (it is drawn on the terminal). */
  attach(region: LiveRegion): void {
    this.#live = region;
  }

  /** `region` is cleared: lines are written directly again. */
  detach(region: LiveRegion): void {
    if (this.#live === region) this.#live = undefined;
  }
}

/**
 * Cuts `text` into pieces of at most `width` characters (code points), so that a line printed
 * above a live region with line wrapping off is never cut at the terminal's edge.
 */
export function splitToWidth(text: string, width: number): string[] {
  const chars = [...text];
  const size = Math.max(1, width);
  if (chars.length <= size) return [text];
  const pieces: string[] = [];
  for (let i = 0; i < chars.length; i += size) pieces.push(chars.slice(i, i + size).join(""));
  return pieces;
}
