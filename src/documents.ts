/**
 * The documents svc-dl prints (cli-contract "JSON documents", "Streams and output", "Operating
 * unattended"), each declared once as a zod/mini schema of what `--json` puts on stdout (and
 * the error line on stderr), with its TypeScript type inferred from it: the commands and the
 * library build their documents typed by those types (`import type`, nothing loaded at run
 * time), and tests and scripts check the output against the schemas (a document a command
 * prints is accepted, and a member it never prints is refused). Imports nothing ours outside
 * src/documents/ and src/io/schema.ts.
 */

export * from "./documents/commands.js";
export * from "./documents/install.js";
export * from "./documents/parts.js";
export * from "./documents/runs.js";
