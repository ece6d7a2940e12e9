import { config } from "zod/mini";
import en from "zod/v4/locales/en.js";

/**
 * The one validation library of svc-dl (server answers, config, lock, manifest, state files):
 * zod's functional API, `zod/mini` (`z.optional(x)`, `x.check(z.minLength(1))`). The same
 * validators as zod's classic API, a few kB of it in the program where the classic API was
 * about 750 kB to compile at every start (docs/performance.md "Start-up").
 *
 * Unlike the classic API, `zod/mini` registers no locale: without one every issue would read
 * "Invalid input". This module installs zod's English messages, as the classic API does on
 * its first schema (only when no locale is set, so a host program's own choice wins), so the
 * messages svc-dl reports (`packs[1].edition: Invalid option: …`) stay what they were.
 * Every module that validates imports it as `import * as z from "…/io/schema.js"` (a
 * namespace import of this module's `export *`, tree-shaken by esbuild to the functions used;
 * `zod/mini`'s own `z` object would keep all of zod/mini and its 50 locales in the program).
 * Only src/api/schemas.ts and src/documents/ (the `--json` documents' schemas), whose types the
 * library's declarations name, import `zod/mini` themselves: src/documents/ sits below every
 * module that builds a document, io/ included, and the program imports only its types (nothing
 * of it is loaded at run time; tests and scripts parse with it). test/program.test.ts keeps
 * zod's classic API out of the program.
 */
if (!config().localeError) config(en());

export * from "zod/mini";
