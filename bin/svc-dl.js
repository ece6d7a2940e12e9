#!/usr/bin/env node
// The svc-dl command: process wiring only (exit code, V8 flags), then the program's main().

// A lone `--version`/`-V` prints the version from package.json without loading commander or
// any other module (same output and exit code as commander's version option).
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
  const { readFileSync } = await import("node:fs");
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  process.stdout.write(`${typeof pkg.version === "string" ? pkg.version : "0.0.0"}\n`);
} else {
  // Should main() never settle (a bug), the process must not end with a silent exit 0.
  process.exitCode = 1;
  // V8's baseline WebAssembly compiler only: undici compiles llhttp's WebAssembly on its first
  // connection, and the optimizing tier costs 20 to 35 MiB of peak RSS for a parser that is not
  // the bottleneck (docs/performance.md). A flag set at run time does not bring the flags it
  // implies on the command line, so the two tier-up flags are named too (Node 24 and later
  // tier up without them). Set here, by the program, never by the library in its host's process.
  const { setFlagsFromString } = await import("node:v8");
  setFlagsFromString("--liftoff-only --no-wasm-tier-up --no-wasm-dynamic-tiering");
  const [{ main, setInflateCollector }, { systemContext }] = await Promise.all([
    import("../dist/cli.js"),
    import("../dist/context.js"),
  ]);
  // A young-generation collection after every 4 MiB a ZIP check inflates, a full one every
  // 128 MiB: frees zlib's spent output buffers long before V8 would (about 58 MiB less peak RSS
  // on a deflated pack; src/integrity/inflate-collector.ts). `gc` is exposed on the first call.
  let gc;
  setInflateCollector((kind) => {
    if (gc === undefined) {
      setFlagsFromString("--expose-gc");
      gc = process.getBuiltinModule("node:vm").runInNewContext("gc");
    }
    if (kind === "full") gc();
    else gc({ type: "minor" });
  });
  process.exitCode = await main(args, systemContext());
}
