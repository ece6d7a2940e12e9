import * as z from "zod/mini";

/**
 * The pieces the documents of src/documents/ share: value shapes, the `--json` error line,
 * the error of a failed item, and the document of one download.
 */

/** Lower-case hex SHA-256 (cli-contract "Integrity"). */
export const sha256 = z.string().check(z.regex(/^[0-9a-f]{64}$/));
/** A count or size in bytes: an integer ≥ 0. */
export const count = z.int().check(z.nonnegative());
/** A non-empty string (slugs, paths, codes). */
export const text = z.string().check(z.minLength(1));
/** What an item is: a pack or an asset. */
export const kind = z.enum(["pack", "asset"]);
/** A pack's edition (cli-contract "pack get": `--edition authoring`). */
export const edition = z.enum(["standard", "authoring"]);

/** The `--json` error line on stderr (cli-contract "Streams and output"). */
export const ErrorLineSchema = z.strictObject({
  error: z.strictObject({
    code: text,
    message: text,
    http_status: z.nullable(z.int()),
    request_id: z.nullable(z.string()),
    retryable: z.boolean(),
    hint: z.nullable(z.string()),
  }),
});
/** The `--json` error line: `{"error":{code, message, http_status, request_id, retryable, hint}}`. */
export type ErrorLine = z.infer<typeof ErrorLineSchema>;

/** The error object inside an item of a multi-item document (`items[].error`). */
export const ItemErrorSchema = z.strictObject({
  code: text,
  message: text,
  http_status: z.nullable(z.int()),
  request_id: z.nullable(z.string()),
  /** The item's own next step, or null (as on the `--json` error line). */
  hint: z.nullable(z.string()),
});
/** The error of a failed (or deferred at the deadline) item: the error line's fields but `retryable`. */
export type ItemErrorDocument = z.infer<typeof ItemErrorSchema>;

/** `pack get --extract`: where the ZIP was unpacked and whether that was needed. */
export const ExtractedSchema = z.strictObject({
  path: text,
  status: z.enum(["extracted", "unchanged"]),
  files: count,
});
/** The `extracted` member of an item (`--extract`). */
export type Extracted = z.infer<typeof ExtractedSchema>;

/**
 * `pack get`/`asset get`/`legacy get --json`, one slug (cli-contract "JSON documents");
 * `extracted` with `pack get --extract`.
 */
export const GetDocumentSchema = z.strictObject({
  kind,
  slug: text,
  edition: z.nullable(edition),
  path: text,
  bytes: count,
  sha256,
  etag: z.nullable(z.string()),
  status: z.enum(["downloaded", "resumed", "up-to-date", "adopted", "repaired"]),
  resumed_from: count,
  extracted: z.optional(ExtractedSchema),
});
/** The document of one download (see {@link GetDocumentSchema}). */
export type GetDocument = z.infer<typeof GetDocumentSchema>;

/**
 * The `error` of a run document that stopped part-way (cli-contract "Operating unattended",
 * `--report`; src/run/error.ts): the `--json` error line's fields but `http_status`.
 */
export const RunErrorSchema = z.strictObject({
  code: text,
  message: text,
  request_id: z.nullable(z.string()),
  retryable: z.boolean(),
  hint: z.nullable(z.string()),
});

/**
 * The end of a run document (cli-contract "Operating unattended"; src/run/recorder.ts):
 * `complete` (false when the run stopped part-way) and, on such a stop, `error`.
 */
export const runEnd = { complete: z.boolean(), error: z.optional(RunErrorSchema) };

/** How a `get` ended for a file (cli-contract "JSON documents": `status`). */
export type GetStatus = GetDocument["status"];

/**
 * The `--json` document of one `get` (cli-contract "JSON documents"): the item, the absolute
 * path, its size in bytes, lower-case hex SHA-256, the ETag it was served with (null if none),
 * the status and the byte offset a resume started from (0 when not resumed); declared by
 * {@link GetDocumentSchema}.
 */
export type GetJsonDocument = GetDocument;

/**
 * The `error` of a failed item of a multi-item run (packs sync, install, the `get` verbs, verify
 * --repair, deferred items): the same fields as the contract's `--json` error document but
 * `retryable`; `hint` is the item's next step (the thrower's, else the error table's) or null.
 */
export type ItemError = ItemErrorDocument;
