#!/usr/bin/env node
import { fileURLToPath } from "node:url";

// Fast path: a lone `--version`/`-V` prints the version from package.json without loading
// commander or any other module (same output and exit code as commander's version option).
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
  const { readFileSync } = await import("node:fs");
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  process.stdout.write(`${typeof pkg.version === "string" ? pkg.version : "0.0.0"}\n`);
} else {
  // Should main() never settle (a bug), the process must not end with a silent exit 0.
  process.exitCode = 1;
  // V8's baseline WebAssembly compiler only: undici compiles llhttp's WebAssembly on its first
  // connection, and the optimizing tier costs about 35 MiB of peak RSS for a parser that is not
  // the bottleneck (docs/performance.md). Set here, by the program, never by the library in
  // its host's process.
  const { setFlagsFromString } = await import("node:v8");
  setFlagsFromString("--liftoff-only");
  // A V8 code cache of the program in svc-dl's cache directory (docs/performance.md
  // "Start-up"): Node's own on Node 22+, else (Node 20) the one-file CommonJS build run with
  // the command's cache entry. Help, no cache directory or NODE_DISABLE_COMPILE_CACHE: the ES
  // modules, as without a cache.
  const help =
    args.length === 0 || args[0] === "help" || args.includes("--help") || args.includes("-h");
  const cache = help ? undefined : await import("../dist/cache/compile-cache.js");
  const route = cache?.commandRoute(args);
  // help and runs without a command never create the cache directory (nor load what it needs)
  const dir =
    route === undefined
      ? undefined
      : await cache?.compileCacheDir(process.env, () => process.cwd());
  const program =
    dir === undefined || cache?.useNodeCompileCache(dir) || route === undefined
      ? undefined
      : cache?.loadProgram(
          fileURLToPath(new URL("../dist/program.cjs", import.meta.url)),
          dir,
          route,
        );
  const { main } = program?.exports ?? (await import("../dist/cli.js"));
  const { systemContext } = program?.exports ?? (await import("../dist/context.js"));
  process.exitCode = await main(args, systemContext());
  program?.save();
}
