/** A parsed `Content-Range` header (RFC 9110 §14.4), positions in bytes. */
export type ContentRange =
  | { kind: "range"; start: number; end: number; total: number | undefined }
  | { kind: "unsatisfied"; total: number };

/**
 * Parses `bytes START-END/TOTAL`, `bytes START-END/*` and `bytes *\/TOTAL`. Returns undefined
 * for anything else (other units, END < START, END ≥ TOTAL, numbers past 2^53).
 */
export function parseContentRange(header: string | undefined): ContentRange | undefined {
  if (!header) return undefined;
  const value = header.trim();
  const unsatisfied = /^bytes\s+\*\/(\d+)$/i.exec(value);
  if (unsatisfied) {
    const total = toSafeNumber(unsatisfied[1]);
    return total === undefined ? undefined : { kind: "unsatisfied", total };
  }
  const range = /^bytes\s+(\d+)-(\d+)\/(\d+|\*)$/i.exec(value);
  if (!range) return undefined;
  const start = toSafeNumber(range[1]);
  const end = toSafeNumber(range[2]);
  const total = range[3] === "*" ? undefined : toSafeNumber(range[3]);
  if (start === undefined || end === undefined || end < start) return undefined;
  if (range[3] !== "*" && (total === undefined || end >= total)) return undefined;
  return { kind: "range", start, end, total };
}

/** Parses a `Content-Length` value; undefined when absent or not a plain whole number. */
export function parseContentLength(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  return /^\d+$/.test(value) ? toSafeNumber(value) : undefined;
}

function toSafeNumber(digits: string | undefined): number | undefined {
  if (digits === undefined) return undefined;
  const n = Number(digits);
  return Number.isSafeInteger(n) ? n : undefined;
}
