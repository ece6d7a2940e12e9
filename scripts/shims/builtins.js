/**
 * How the program (scripts/build.js: dist/cli.js, dist/context.js and their chunks, and its
 * one-file build dist/program.cjs) reaches Node's built-in modules, so a run loads and sets up
 * only the built-ins it uses (docs/performance.md "Node built-ins"). Two esbuild rules, for the
 * program only (the library and the mock service import built-ins as written):
 *
 * 1. An `import … from "node:x"` becomes `require("node:x")`. Node gives an ES module a
 *    built-in through a facade that reads every export once, which runs lazy getters: importing
 *    `node:crypto` loads all of Web Crypto (`crypto.webcrypto`), `node:process` the diagnostic
 *    report (`process.report`), `node:net` `BlockList`. esbuild's CommonJS interop reads an
 *    export when the code uses it.
 * 2. The built-ins of ON_FIRST_USE (imported or required, by our code or an inlined package)
 *    are replaced by an object of getters that loads the real module on the first read of one
 *    of its exports: commander requires `child_process` (with `dgram`, `net` sockets lists) for
 *    executable subcommands the program never has; `zlib` serves `pack get --extract` only;
 *    `tls` an https origin only; `assert` (undici) see ASSERT below.
 *
 * Export names come from the building Node (`Object.getOwnPropertyNames`); a name the running
 * Node lacks reads `undefined`, as it would from the real module.
 */
import { builtinModules, createRequire } from "node:module";

const nodeRequire = createRequire(import.meta.url);

/**
 * Built-ins a run of the program may never use. Not here: what every run loads anyway (`fs`,
 * `path`, `net`, `stream`, `events`...), and `http`, whose `maxHeaderSize` undici reads when
 * its Client module loads.
 */
const ON_FIRST_USE = new Set([
  "assert",
  "child_process",
  "crypto",
  "dns",
  "dns/promises",
  "readline",
  "timers/promises",
  "tls",
  "v8",
  "worker_threads",
  "zlib",
]);

/**
 * undici calls `assert(condition)` on its request path, signal-exit (proper-lockfile)
 * `assert.equal(typeof cb, "function")` when it loads. A passing assertion does nothing, so the
 * stand-in returns when the check holds and hands anything else (a failing check, missing
 * arguments) to the real `assert`, which throws as it always does.
 */
const ASSERT = `function assert(value) {
  if (arguments.length === 0 || !value) return Reflect.apply(load(), this, arguments);
}
assert.equal = function equal(actual, expected) {
  if (arguments.length < 2 || actual != expected) return Reflect.apply(load().equal, this, arguments);
};`;

const NAMESPACE = "svc-dl-builtin";

/** The esbuild plugin: rule 1 for every built-in, rule 2 for ON_FIRST_USE (see above). */
export function builtinsOnFirstUse() {
  return {
    name: "builtins-on-first-use",
    setup(b) {
      b.onResolve({ filter: /^(node:)?[a-z_0-9/]+$/ }, (args) => {
        const name = args.path.replace(/^node:/, "");
        // our own stand-ins require the real module
        if (args.namespace === NAMESPACE || !builtinModules.includes(name)) return undefined;
        if (ON_FIRST_USE.has(name)) return { path: `lazy:${name}`, namespace: NAMESPACE };
        if (args.kind === "import-statement")
          return { path: `require:${name}`, namespace: NAMESPACE };
        return undefined;
      });
      b.onLoad({ filter: /^require:/, namespace: NAMESPACE }, (args) => ({
        loader: "js",
        contents: `module.exports = require("node:${args.path.slice("require:".length)}");`,
      }));
      b.onLoad({ filter: /^lazy:/, namespace: NAMESPACE }, (args) => ({
        loader: "js",
        contents: onFirstUse(args.path.slice("lazy:".length)),
      }));
    },
  };
}

/** The source of the stand-in for built-in `name`: getters (and setters) that load it. */
function onFirstUse(name) {
  return `let real;
const load = () => (real ??= require(${JSON.stringify(`node:${name}`)}));
${name === "assert" ? `${ASSERT}\nconst lazy = assert;` : "const lazy = {};"}
for (const key of ${JSON.stringify(exportNames(name))}) {
  if (Object.hasOwn(lazy, key)) continue;
  Object.defineProperty(lazy, key, {
    enumerable: true,
    get: () => load()[key],
    set: (value) => { load()[key] = value; },
  });
}
module.exports = lazy;
`;
}

/** The export names of built-in `name` in the Node that builds. */
function exportNames(name) {
  return Object.getOwnPropertyNames(nodeRequire(`node:${name}`));
}
