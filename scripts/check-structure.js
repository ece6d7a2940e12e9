#!/usr/bin/env node
// @ts-check
/**
 * Structural checks over the TypeScript sources of a folder (src/ by default), read with the
 * TypeScript compiler API (never with regexes):
 *
 * - files longer than 300 lines (docs/design.md: "files in src/ stay under 300 lines");
 * - functions, methods and arrow functions longer than 80 lines (from the first token of the
 *   declaration to its closing brace, leading comments not counted, nested functions included);
 * - import cycles between files (static, `import type` and `import()` with a literal all count);
 * - imports that run back up between the rooms of the folder (its top-level sub-folders and
 *   files): where rooms import each other in a loop, the lightest arrows of the loop (fewest
 *   file imports) are the ones that run against the dependency order of docs/design.md.
 *
 * Usage: node scripts/check-structure.js [DIR]   (prints one line per finding; exit 1 if any)
 * The test test/structure.test.ts runs the same checks over src/.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** The longest a file may be, in lines. */
export const MAX_FILE_LINES = 300;
/** The longest a function may be, in lines. */
export const MAX_FUNCTION_LINES = 80;

/**
 * @typedef {{ file: string, lines: number }} LongFile
 * @typedef {{ file: string, name: string, line: number, lines: number }} LongFunction
 * @typedef {{ from: string, to: string, files: string[] }} RoomArrow
 * @typedef {{
 *   longFiles: LongFile[],
 *   longFunctions: LongFunction[],
 *   fileCycles: string[][],
 *   upwardImports: RoomArrow[],
 *   rooms: Record<string, string[]>,
 * }} StructureReport
 */

/**
 * Every `.ts` file below `dir`, as paths relative to `dir` with `/` separators, sorted.
 * @param {string} dir
 * @returns {string[]}
 */
function tsFiles(dir) {
  /** @type {string[]} */
  const out = [];
  const walk = (/** @type {string} */ at) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".ts")) out.push(relative(dir, path).split(sep).join("/"));
    }
  };
  walk(dir);
  return out.sort();
}

/**
 * The name a reader would search for: `fn`, `Class.method`, `const name = () => …`.
 * @param {ts.Node} node
 * @returns {string}
 */
function functionName(node) {
  const named = /** @type {{ name?: ts.Node }} */ (node).name;
  const own =
    named && (ts.isIdentifier(named) || ts.isPrivateIdentifier(named) || ts.isStringLiteral(named))
      ? named.text
      : null;
  const parent = node.parent;
  if (own && ts.isClassLike(parent)) return `${parent.name?.text ?? "<class>"}.${own}`;
  if (ts.isConstructorDeclaration(node) && ts.isClassLike(parent)) {
    return `${parent.name?.text ?? "<class>"}.constructor`;
  }
  if (own) return own;
  if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  for (let up = parent; up; up = up.parent) {
    if (ts.isFunctionLike(up)) return `${functionName(up)}/<anonymous>`;
  }
  return "<anonymous>";
}

/**
 * What one source file says about itself: its length, its functions, the files it imports.
 * @param {string} root
 * @param {string} file
 */
function readSource(root, file) {
  const text = readFileSync(join(root, file), "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lineOf = (/** @type {number} */ pos) => source.getLineAndCharacterOfPosition(pos).line + 1;
  /** @type {LongFunction[]} */
  const functions = [];
  /** @type {Set<string>} */
  const imports = new Set();
  const addImport = (/** @type {ts.Node | undefined} */ spec) => {
    if (!spec || !ts.isStringLiteralLike(spec) || !spec.text.startsWith(".")) return;
    const target = join(dirname(file), spec.text.replace(/\.js$/, ".ts")).split(sep).join("/");
    imports.add(target);
  };
  const visit = (/** @type {ts.Node} */ node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const line = lineOf(node.getStart(source));
      const lines = lineOf(node.getEnd()) - line + 1;
      functions.push({ file, name: functionName(node), line, lines });
    }
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node))
      addImport(node.moduleSpecifier);
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      addImport(node.arguments[0]);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  const lines = text.endsWith("\n") ? text.split("\n").length - 1 : text.split("\n").length;
  return { lines, functions, imports };
}

/**
 * The strongly connected components with more than one node (Tarjan), each sorted.
 * @param {Map<string, Set<string>>} graph
 * @returns {string[][]}
 */
function cycles(graph) {
  let next = 0;
  /** @type {Map<string, { index: number, low: number }>} */
  const seen = new Map();
  /** @type {string[]} */
  const stack = [];
  /** @type {string[][]} */
  const found = [];
  const connect = (/** @type {string} */ node) => {
    const mark = { index: next, low: next };
    next += 1;
    seen.set(node, mark);
    stack.push(node);
    for (const to of graph.get(node) ?? []) {
      const other = seen.get(to);
      if (!other) {
        connect(to);
        mark.low = Math.min(mark.low, seen.get(to)?.low ?? mark.low);
      } else if (stack.includes(to)) mark.low = Math.min(mark.low, other.index);
    }
    if (mark.low !== mark.index) return;
    /** @type {string[]} */
    const component = [];
    for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
      component.push(top);
      if (top === node) break;
    }
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!seen.has(node)) connect(node);
  return found;
}

/**
 * The room of a file: its top-level folder below the checked folder, or the file itself.
 * @param {string} file
 */
const roomOf = (file) => (file.includes("/") ? `${file.slice(0, file.indexOf("/"))}/` : file);

/**
 * Runs every check over the `.ts` files below `dir`.
 * @param {string} dir the folder to check (src/ in this repository)
 * @returns {StructureReport} the findings, each list sorted; empty lists when the rules hold;
 *   `rooms` (not a finding) maps each room to the rooms it imports
 */
export function checkStructure(dir) {
  const root = resolve(dir);
  const files = tsFiles(root);
  /** @type {StructureReport} */
  const report = {
    longFiles: [],
    longFunctions: [],
    fileCycles: [],
    upwardImports: [],
    rooms: {},
  };
  /** @type {Map<string, Set<string>>} */
  const fileGraph = new Map();
  for (const file of files) {
    const { lines, functions, imports } = readSource(root, file);
    if (lines > MAX_FILE_LINES) report.longFiles.push({ file, lines });
    report.longFunctions.push(...functions.filter((f) => f.lines > MAX_FUNCTION_LINES));
    fileGraph.set(file, new Set([...imports].filter((to) => files.includes(to))));
  }
  report.fileCycles = cycles(fileGraph);
  /** @type {Map<string, Set<string>>} */
  const roomGraph = new Map();
  for (const [file, imports] of fileGraph) {
    const targets = roomGraph.get(roomOf(file)) ?? new Set();
    for (const to of imports) if (roomOf(to) !== roomOf(file)) targets.add(roomOf(to));
    roomGraph.set(roomOf(file), targets);
  }
  report.upwardImports = cycles(roomGraph).flatMap((rooms) => upwardArrows(rooms, fileGraph));
  for (const [room, targets] of [...roomGraph].sort(([a], [b]) => a.localeCompare(b))) {
    report.rooms[room] = [...targets].sort();
  }
  return report;
}

/**
 * The arrows that run back up inside one cycle of rooms. Arrows are laid down heaviest first
 * (the most file imports); an arrow that would close a loop with those already laid runs back
 * up. Ties go by name, so the answer is stable.
 * @param {string[]} rooms
 * @param {Map<string, Set<string>>} fileGraph
 * @returns {RoomArrow[]}
 */
function upwardArrows(rooms, fileGraph) {
  /** @type {RoomArrow[]} */
  const arrows = rooms.flatMap((from) =>
    rooms
      .filter((to) => to !== from)
      .map((to) => ({
        from,
        to,
        files: [...fileGraph]
          .filter(([file]) => roomOf(file) === from)
          .flatMap(([file, imports]) =>
            [...imports].filter((t) => roomOf(t) === to).map((t) => `${file} -> ${t}`),
          ),
      }))
      .filter((arrow) => arrow.files.length > 0),
  );
  arrows.sort(
    (a, b) =>
      b.files.length - a.files.length || `${a.from}${a.to}`.localeCompare(`${b.from}${b.to}`),
  );
  /** @type {Map<string, Set<string>>} */
  const laid = new Map(rooms.map((room) => [room, new Set()]));
  const reaches = (/** @type {string} */ from, /** @type {string} */ to) => {
    const todo = [from];
    const seen = new Set(todo);
    for (let at = todo.pop(); at !== undefined; at = todo.pop()) {
      if (at === to) return true;
      for (const next of laid.get(at) ?? []) {
        if (!seen.has(next)) todo.push(next);
        seen.add(next);
      }
    }
    return false;
  };
  return arrows.filter((arrow) => {
    if (reaches(arrow.to, arrow.from)) return true;
    laid.get(arrow.from)?.add(arrow.to);
    return false;
  });
}

/**
 * One line per finding, for people.
 * @param {StructureReport} report
 * @returns {string[]}
 */
export function describeReport(report) {
  return [
    ...report.longFiles.map((f) => `file ${f.file}: ${f.lines} lines (> ${MAX_FILE_LINES})`),
    ...report.longFunctions.map(
      (f) => `function ${f.file}:${f.line} ${f.name}: ${f.lines} lines (> ${MAX_FUNCTION_LINES})`,
    ),
    ...report.fileCycles.map((c) => `file cycle ${c.join(" <-> ")}`),
    ...report.upwardImports.map((a) => `upward import ${a.from} -> ${a.to}: ${a.files.join(", ")}`),
  ];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const lines = describeReport(checkStructure(process.argv[2] ?? "src"));
  for (const line of lines) console.log(line);
  process.exitCode = lines.length > 0 ? 1 : 0;
}
