import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";

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

/** Inverts the byte at `at` of `path`, keeping its size and modification time. */
export function flipInPlace(path: string, at: number): void {
  const { mtime } = statSync(path);
  const bytes = readFileSync(path);
  bytes[at] = (bytes[at] ?? 0) ^ 0xff;
  writeFileSync(path, bytes);
  utimesSync(path, mtime, mtime);
}

/**
 * Makes the state file of `dir` record the modification time `path` has now, its size and
 * SHA-256 as they were: a file whose bytes changed while its size and modification time still
 * match the record (the size+mtime shortcut would call it up to date).
 */
export function restampRecord(dir: string, path: string): void {
  const statePath = join(dir, ".svc-dl", "state.json");
  const state = JSON.parse(readFileSync(statePath, "utf8"));
  state.items[basename(path)].mtime_ms = statSync(path).mtimeMs;
  writeFileSync(statePath, JSON.stringify(state));
}

/** Makes the state file of `dir` vouch for the bytes now in `path` (as a record of damaged bytes would). */
export function recordAsIs(dir: string, path: string): void {
  const statePath = join(dir, ".svc-dl", "state.json");
  const state = JSON.parse(readFileSync(statePath, "utf8"));
  const rec = state.items[basename(path)];
  rec.sha256 = sha256Of(path);
  rec.mtime_ms = statSync(path).mtimeMs;
  writeFileSync(statePath, JSON.stringify(state));
}
