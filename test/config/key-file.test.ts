import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { keyFromFiles, readKeyFile } from "../../src/config/key-file.js";
import { FileSystemError } from "../../src/errors/file-system-error.js";

const KEY = "svc_live_keyfileabcdefghijklmnopqrstuv_12345678";

function dir(): string {
  return mkdtempSync(join(tmpdir(), "svc-dl-keyfile-"));
}

function keyFile(mode = 0o600, text = `${KEY}\n`): string {
  const path = join(dir(), "key");
  writeFileSync(path, text);
  chmodSync(path, mode);
  return path;
}

function refusal(fn: () => unknown): FileSystemError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(FileSystemError);
    return err as FileSystemError;
  }
  throw new Error("expected unsafe_key_file");
}

describe("readKeyFile (cli-contract: SVC_API_KEY_FILE file-safety rules)", () => {
  it("reads a 0600 (or 0400) file of the user's own, trimmed", () => {
    expect(readKeyFile(keyFile(0o600, `  ${KEY}\r\n\n`), "SVC_API_KEY_FILE")).toBe(KEY);
    expect(readKeyFile(keyFile(0o400), "SVC_API_KEY_FILE")).toBe(KEY);
  });

  it.each([0o644, 0o640, 0o604, 0o620, 0o660])(
    "refuses mode %o (group or others have a bit): exit 8, names the path and mode, never the key",
    (mode) => {
      const path = keyFile(mode);
      const err = refusal(() => readKeyFile(path, "SVC_API_KEY_FILE"));
      expect(err.code).toBe("unsafe_key_file");
      expect(err.exitCode).toBe(8);
      expect(err.message).toContain(path);
      expect(err.message).toContain(`mode ${mode.toString(8)}`);
      expect(`${err.message} ${err.hint}`).not.toContain(KEY);
      expect(err.hint).toContain("chmod 600");
    },
  );

  it("refuses a symlink, even to a safe file", () => {
    const target = keyFile();
    const link = join(dir(), "link");
    symlinkSync(target, link);
    expect(refusal(() => readKeyFile(link, "SVC_API_KEY_FILE")).message).toContain("symbolic link");
  });

  it("refuses a missing file, a directory, a FIFO (without blocking) and an empty file", () => {
    const d = dir();
    expect(refusal(() => readKeyFile(join(d, "none"), "x")).message).toContain("does not exist");
    mkdirSync(join(d, "sub"), { mode: 0o700 });
    expect(refusal(() => readKeyFile(join(d, "sub"), "x")).message).toContain("not a regular file");
    execFileSync("mkfifo", ["-m", "600", join(d, "fifo")]);
    expect(refusal(() => readKeyFile(join(d, "fifo"), "x")).message).toContain(
      "not a regular file",
    );
    expect(refusal(() => readKeyFile(keyFile(0o600, " \n"), "x")).message).toContain("is empty");
  });

  it("refuses a file owned by another user", () => {
    const path = keyFile();
    if (process.geteuid?.() === 0) {
      chownSync(path, 65534, 65534);
      expect(refusal(() => readKeyFile(path, "x")).message).toContain("owned by another user");
    } else {
      // not root: a file of another user is one we cannot create; /etc/passwd is root's
      expect(refusal(() => readKeyFile("/etc/passwd", "x")).code).toBe("unsafe_key_file");
    }
  });
});

describe("keyFromFiles: SVC_API_KEY_FILE, then $CREDENTIALS_DIRECTORY/svc-api-key", () => {
  it("takes SVC_API_KEY_FILE first, and the systemd credential only when its file exists", () => {
    const file = keyFile();
    const creds = dir();
    writeFileSync(join(creds, "svc-api-key"), "svc_live_fromcredential", { mode: 0o400 });
    expect(keyFromFiles({ SVC_API_KEY_FILE: file, CREDENTIALS_DIRECTORY: creds })).toMatchObject({
      value: KEY,
      kind: "file",
      path: file,
    });
    expect(keyFromFiles({ CREDENTIALS_DIRECTORY: creds })).toMatchObject({
      value: "svc_live_fromcredential",
      kind: "systemd-credential",
      path: join(creds, "svc-api-key"),
    });
    expect(keyFromFiles({ CREDENTIALS_DIRECTORY: dir() })).toBeUndefined();
    expect(keyFromFiles({})).toBeUndefined();
  });

  it("a named SVC_API_KEY_FILE that is missing is an error, not a fall-through", () => {
    expect(refusal(() => keyFromFiles({ SVC_API_KEY_FILE: join(dir(), "missing") })).code).toBe(
      "unsafe_key_file",
    );
  });
});
