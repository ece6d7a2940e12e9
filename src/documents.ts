/**
 * The documents svc-dl prints (cli-contract "JSON documents", "Streams and output", "Operating
 * unattended"), as zod schemas of what `--json` puts on stdout (and the error line on stderr),
 * so tests and scripts can check them: a document a command prints is accepted, and a member it
 * never prints is refused. The domain types they describe are in src/model.ts. Imports nothing
 * ours outside src/documents/.
 */

export * from "./documents/commands.js";
export {
  type ErrorLine,
  ErrorLineSchema,
  type GetDocument,
  GetDocumentSchema,
  ItemErrorSchema,
} from "./documents/parts.js";
export * from "./documents/runs.js";
