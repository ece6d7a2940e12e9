/** Inflated bytes between two calls of the collector. */
const COLLECT_EVERY = 4 * 1024 * 1024;
/** Every how many calls the collector is asked for a full collection (every 128 MiB). */
const FULL_EVERY_CALLS = 32;

/**
 * What the collector is asked for: `young`, a young-generation collection (a fraction of a
 * millisecond); `full`, a full one (a few milliseconds).
 */
export type CollectionKind = "young" | "full";

let collector: ((kind: CollectionKind) => void) | undefined;
let sinceLast = 0;
let calls = 0;

/**
 * Sets what runs after every 4 MiB that the ZIP checks inflate (docs/performance.md "The
 * format check"). node:zlib's stream allocates a fresh output buffer each time one fills, and
 * V8 frees that garbage only once about 64 MiB of it has built up: the program (bin/svc-dl.js)
 * passes a collector that runs a young-generation collection when asked for `young`, which
 * frees it for a fraction of a millisecond and keeps the peak RSS of a deflated pack's check
 * about 50 MiB lower. Every 32nd call (every 128 MiB) asks for `full`: an output buffer still
 * being filled when two young collections pass moves to the old generation, where only a full
 * collection frees it (about 8 MiB less peak RSS on the bench's deflated pack). The library
 * never sets one in its host's process. `undefined` removes it.
 */
export function setInflateCollector(collect: ((kind: CollectionKind) => void) | undefined): void {
  collector = collect;
  sinceLast = 0;
  calls = 0;
}

/**
 * Counts `bytes` of inflated output; runs the collector when 4 MiB have passed since it last
 * ran, asking for a full collection every 32nd time.
 */
export function countInflated(bytes: number): void {
  sinceLast += bytes;
  if (sinceLast < COLLECT_EVERY || collector === undefined) return;
  sinceLast = 0;
  calls += 1;
  collector(calls % FULL_EVERY_CALLS === 0 ? "full" : "young");
}
