import { PassThrough } from "node:stream";
import type { Command } from "commander";
import type { Context } from "../../src/context.js";
import { buildProgram } from "../../src/program.js";

/** A context that is never used to run anything: enough to build the commander tree. */
export function treeContext(): Context {
  return {
    io: {
      stdout: new PassThrough(),
      stderr: new PassThrough(),
      stdin: new PassThrough(),
      stdoutIsTTY: false,
      stderrIsTTY: false,
      stdinIsTTY: false,
    },
    env: {},
    cwd: "/",
    version: "0.0.0-test",
    signal: new AbortController().signal,
  };
}

/** The program's commander tree, as `main()` builds it. */
export function programTree(): Command {
  return buildProgram(
    treeContext(),
    () => {},
    () => {},
  );
}

/** Every command of the tree below the root, depth first. */
export function allCommands(root: Command): Command[] {
  const out: Command[] = [];
  const walk = (cmd: Command) => {
    for (const sub of cmd.commands) {
      out.push(sub);
      walk(sub);
    }
  };
  walk(root);
  return out;
}
