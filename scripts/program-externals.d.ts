/** Types of scripts/program-externals.js (its docstring says what the list is). */
export declare const PROGRAM_EXTERNALS: readonly string[];
