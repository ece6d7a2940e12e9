import { lstatSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PREFIX = "svc-dl-run-";

/**
 * A run's temp root untouched for longer than this (ms) belongs to a run that was killed before
 * its teardown (the longest CI step is bounded at under 2 hours).
 */
const STALE_MS = 6 * 60 * 60 * 1000;

/**
 * Vitest global setup: gives the whole run one temp root, `<os temp dir>/svc-dl-run-XXXXXX`,
 * by pointing `TMPDIR` at it before the test workers start (they and every child process that
 * inherits their environment take `os.tmpdir()` from it), and removes it when the run ends.
 * Tests make thousands of directories under `os.tmpdir()` (config directories, output
 * directories, mock worlds: about 5,000 and 0.5 GB a run); without this they stayed behind
 * and a machine running the suite often enough ran out of disk. The roots of killed runs,
 * untouched for 6 hours, are removed first. Returns the teardown.
 */
export default function setup(): () => void {
  const previous = process.env.TMPDIR;
  const parent = tmpdir();
  removeStaleRoots(parent, Date.now());
  const root = mkdtempSync(join(parent, PREFIX));
  process.env.TMPDIR = root;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  };
}

/** Removes the `svc-dl-run-*` directories in `parent` not modified for {@link STALE_MS}. */
export function removeStaleRoots(parent: string, now: number): void {
  for (const name of readdirSync(parent)) {
    if (!name.startsWith(PREFIX)) continue;
    const path = join(parent, name);
    try {
      const st = lstatSync(path);
      if (st.isDirectory() && now - st.mtimeMs > STALE_MS) {
        rmSync(path, { recursive: true, force: true });
      }
    } catch {
      // gone meanwhile, or not ours to read: left alone
    }
  }
}
