/**
 * `Range` / `If-Range` handling for the CDN (RFC 9110 §14): a single
 * `bytes=N-`, `bytes=N-M` or `bytes=-K` range; anything else is ignored
 * (full 200). A start at or past the end is unsatisfiable (416).
 */

/** Result of evaluating the Range header against a file of `size` bytes. */
export type RangeDecision =
  | { kind: "full" }
  | { kind: "partial"; start: number; end: number }
  | { kind: "unsatisfiable" };

/** Evaluate `Range` (and `If-Range` against the current strong `etag`). */
export function decideRange(
  range: string | undefined,
  ifRange: string | undefined,
  etag: string,
  size: number,
): RangeDecision {
  if (range === undefined) return { kind: "full" };
  if (ifRange !== undefined && ifRange.trim() !== etag) return { kind: "full" };
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(range);
  if (m === null) return { kind: "full" };
  const a = m[1] ?? "";
  const b = m[2] ?? "";
  if (a === "" && b === "") return { kind: "full" };
  if (a === "") {
    const suffix = Number(b);
    if (suffix === 0) return { kind: "unsatisfiable" };
    return { kind: "partial", start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(a);
  if (start >= size) return { kind: "unsatisfiable" };
  const end = b === "" ? size - 1 : Math.min(Number(b), size - 1);
  if (end < start) return { kind: "full" };
  return { kind: "partial", start, end };
}
