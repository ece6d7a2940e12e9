/**
 * A count with its noun in the right number, for every human line that prints one:
 * `counted(1, "file")` → `1 file`, `counted(3, "file")` → `3 files`,
 * `counted(2, "entry", "entries")` → `2 entries`.
 */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
