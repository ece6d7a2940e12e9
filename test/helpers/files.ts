import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A fresh empty directory for one test (real, under the OS temp dir). */
export function tempDir(prefix = "svc-dl-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Lower-case hex SHA-256 of a buffer. */
export function sha256(data: Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

/** Lower-case hex SHA-256 of a file's bytes. */
export function sha256Of(path: string): string {
  return sha256(readFileSync(path));
}
