import xterm from "@xterm/headless";

/**
 * What a terminal `columns` wide shows after receiving `chunks` in order (a headless xterm.js,
 * newline as a terminal's line discipline turns it into CR LF): the lines of its scrollback and
 * screen, right-trimmed, without the empty lines at the bottom. `after` is called with the lines
 * shown after each chunk, to check what was on the screen at every moment.
 */
export async function screenAfter(
  chunks: readonly string[],
  columns: number,
  after?: (lines: string[]) => void,
): Promise<string[]> {
  const term = new xterm.Terminal({
    cols: columns,
    rows: 24,
    scrollback: 10_000,
    convertEol: true,
    allowProposedApi: true,
  });
  const lines = (): string[] => {
    const buffer = term.buffer.active;
    const out: string[] = [];
    for (let i = 0; i < buffer.length; i++)
      out.push(buffer.getLine(i)?.translateToString(true) ?? "");
    while (out.length > 0 && out.at(-1) === "") out.pop();
    return out;
  };
  for (const chunk of chunks) {
    await new Promise<void>((resolve) => term.write(chunk, resolve));
    after?.(lines());
  }
  const shown = lines();
  term.dispose();
  return shown;
}
