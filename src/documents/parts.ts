import { z } from "zod";

/**
 * The pieces the documents of src/documents.ts share: value shapes, the `--json` error line,
 * the error of a failed item, and the document of one download.
 */

export const sha256 = z.string().regex(/^[0-9a-f]{64}$/);
export const count = z.number().int().nonnegative();
export const kind = z.enum(["pack", "asset"]);
export const edition = z.enum(["standard", "authoring"]);

/** The `--json` error line on stderr (cli-contract "Streams and output"). */
export const ErrorLineSchema = z.strictObject({
  error: z.strictObject({
    code: z.string().min(1),
    message: z.string().min(1),
    http_status: z.number().int().nullable(),
    request_id: z.string().nullable(),
    retryable: z.boolean(),
    hint: z.string().nullable(),
  }),
});
export type ErrorLine = z.infer<typeof ErrorLineSchema>;

/** The error object inside an item of a multi-item document (`items[].error`). */
export const ItemErrorSchema = z.strictObject({
  code: z.string().min(1),
  message: z.string().min(1),
  http_status: z.number().int().nullable(),
  request_id: z.string().nullable(),
  /** The item's own next step, or null (as on the `--json` error line). */
  hint: z.string().nullable(),
});

/** `pack get --extract`: where the ZIP was unpacked and whether that was needed. */
export const extracted = z.strictObject({
  path: z.string().min(1),
  status: z.enum(["extracted", "unchanged"]),
  files: count,
});

/** `pack get`/`asset get`/`legacy get --json`, one slug; `extracted` with `pack get --extract`. */
export const GetDocumentSchema = z.strictObject({
  kind,
  slug: z.string().min(1),
  edition: edition.nullable(),
  path: z.string().min(1),
  bytes: count,
  sha256,
  etag: z.string().nullable(),
  status: z.enum(["downloaded", "resumed", "up-to-date", "adopted", "repaired"]),
  resumed_from: count,
  extracted: extracted.optional(),
});
export type GetDocument = z.infer<typeof GetDocumentSchema>;
