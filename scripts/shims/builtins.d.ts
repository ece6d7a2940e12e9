/** Types of scripts/shims/builtins.js (its docstrings say what the rules do and why). */
import type { Plugin } from "esbuild";

/** The esbuild plugin that gives the program's bundle its built-ins through require(). */
export declare function builtinsOnFirstUse(): Plugin;
