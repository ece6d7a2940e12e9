/**
 * The program as one CommonJS bundle (dist/program.cjs, scripts/build.js): what bin/svc-dl.js
 * runs on Node 20 through its V8 code cache (src/cache/compile-cache.ts). The same modules as
 * dist/cli.js and dist/context.js; modules the program imports lazily stay unevaluated until
 * their first `import()`.
 */
export { main } from "./cli.js";
export { systemContext } from "./context.js";
