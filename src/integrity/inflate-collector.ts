/** Inflated bytes between two calls of the collector. */
const COLLECT_EVERY = 4 * 1024 * 1024;

let collector: (() => void) | undefined;
let sinceLast = 0;

/**
 * Sets what runs after every 4 MiB that the ZIP checks inflate (docs/performance.md "The
 * format check"). node:zlib's stream allocates a fresh output buffer each time one fills, and
 * V8 frees that garbage only once about 64 MiB of it has built up: the program (bin/svc-dl.js)
 * passes a young-generation collection, which frees it for a fraction of a millisecond and
 * keeps the peak RSS of a deflated pack's check about 50 MiB lower. The library never sets
 * one in its host's process. `undefined` removes it.
 */
export function setInflateCollector(collect: (() => void) | undefined): void {
  collector = collect;
  sinceLast = 0;
}

/** Counts `bytes` of inflated output; runs the collector when 4 MiB have passed since it last ran. */
export function countInflated(bytes: number): void {
  sinceLast += bytes;
  if (sinceLast < COLLECT_EVERY || collector === undefined) return;
  sinceLast = 0;
  collector();
}
