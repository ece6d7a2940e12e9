import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Vitest global setup: gives the whole run one temp root, `<os temp dir>/svc-dl-run-XXXXXX`,
 * by pointing `TMPDIR` at it before the test workers start (they and every child process that
 * inherits their environment take `os.tmpdir()` from it), and removes it when the run ends.
 * Tests make thousands of directories under `os.tmpdir()` (config directories, output
 * directories, mock worlds: about 5,000 and 0.5 GB a run); without this they stayed behind
 * and a machine running the suite often enough ran out of disk. Returns the teardown.
 */
export default function setup(): () => void {
  const previous = process.env.TMPDIR;
  const root = mkdtempSync(join(tmpdir(), "svc-dl-run-"));
  process.env.TMPDIR = root;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  };
}
