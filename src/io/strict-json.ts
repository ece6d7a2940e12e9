import { type JSONPath, visit } from "jsonc-parser";

/** The outcome of {@link parseStrictJson}: the value, or what is wrong with the text. */
export type StrictJsonResult = { ok: true; value: unknown } | { ok: false; problem: string };

/**
 * Parses JSON that svc-dl reads from a repository or a disk (cli-contract "Untrusted text,
 * paths and caches": `svc-dl.json`, `svc-dl.lock`): a leading UTF-8 byte-order mark is
 * accepted; comments, trailing commas and anything `JSON.parse` refuses are a problem; so is
 * an object that names a key twice, which `JSON.parse` would silently resolve last-wins
 * (`{"dir":"vendor","dir":"../escaped"}`). Duplicates are found with jsonc-parser's visitor; the
 * problem names the key and its JSON path (`packs[1].edition: duplicate key "edition"`).
 * Never throws.
 */
export function parseStrictJson(text: string): StrictJsonResult {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    return { ok: false, problem: `not valid JSON (${(err as Error).message})` };
  }
  const duplicate = firstDuplicateKey(body);
  if (duplicate !== undefined) return { ok: false, problem: duplicate };
  return { ok: true, value };
}

/** `dir`, `packs[1].edition` (the form zod errors are reported in), `(top level)` for none. */
export function formatJsonPath(path: readonly (string | number)[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? part : `.${part}`;
  }
  return out === "" ? "(top level)" : out;
}

/** The first key an object of `text` (valid JSON) names twice, as a problem; else undefined. */
function firstDuplicateKey(text: string): string | undefined {
  const open: Set<string>[] = [];
  let found: string | undefined;
  visit(
    text,
    {
      onObjectBegin: () => {
        open.push(new Set());
      },
      onObjectEnd: () => {
        open.pop();
      },
      onObjectProperty: (key: string, _offset, _length, _line, _column, where: () => JSONPath) => {
        const keys = open[open.length - 1];
        if (found !== undefined || keys === undefined) return;
        if (keys.has(key)) {
          const path = formatJsonPath([...where(), key]);
          found = `${path}: duplicate key ${JSON.stringify(key)} (each key may appear once in an object)`;
        }
        keys.add(key);
      },
    },
    { disallowComments: true, allowTrailingComma: false },
  );
  return found;
}
