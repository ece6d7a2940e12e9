/**
 * npm packages the program bundle loads from node_modules instead of inlining them: native
 * modules, which esbuild cannot bundle. Each must stay in package.json "dependencies"
 * (test/package-manifest.test.ts checks it).
 */
export const PROGRAM_EXTERNALS = ["@napi-rs/keyring"];
