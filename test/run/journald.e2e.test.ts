import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isJournalStream } from "../../src/io/streams.js";
import { startMockService } from "../../src/mock-server/index.js";
import type { MockService } from "../../src/mock-server/types.js";
import { cleanEnv, cliArgv } from "../helpers/cli.js";
import { tempDir } from "../helpers/files.js";

/**
 * Journald (cli-contract "Credentials, schedules and offline runs"): when stderr is the journal
 * (`JOURNAL_STREAM` names stderr's device and inode), plain lines carry no time of their own.
 * A child process, so that fd 2 really is the file `JOURNAL_STREAM` names.
 */

let mock: MockService;
beforeAll(async () => {
  mock = await startMockService({ quiet: true, packSize: 2048 });
});
afterAll(async () => {
  await mock.close();
});

/** Runs `svc-dl packs sync DIR` with stderr into a file; `journal` sets JOURNAL_STREAM to it (or to another file). */
async function syncWithStderrFile(journal: "same" | "other"): Promise<string> {
  const work = tempDir();
  const log = join(work, "stderr.log");
  const other = join(work, "other");
  writeFileSync(log, "");
  writeFileSync(other, "");
  const st = statSync(journal === "same" ? log : other);
  const argv = cliArgv(["packs", "sync", join(work, "assets")])
    .map((a) => `'${a}'`)
    .join(" ");
  const child = spawn("sh", ["-c", `exec ${argv} 2>>'${log}'`], {
    env: cleanEnv({
      SVC_BASE_URL: mock.baseUrl,
      SVC_API_KEY: mock.apiKey,
      JOURNAL_STREAM: `${st.dev}:${st.ino}`,
    }),
    stdio: "ignore",
  });
  const [code] = await once(child, "exit");
  expect(code).toBe(0);
  return readFileSync(log, "utf8");
}

describe("journald", () => {
  it("stderr is the journal: no HH:MM:SS of svc-dl's own before the lines", async () => {
    const lines = (await syncWithStderrFile("same")).trim().split("\n");
    expect(lines[0]).toMatch(/^svc-dl \S+ packs sync started /);
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines.slice(1)) expect(line).not.toMatch(/^\d\d:\d\d:\d\d /);
  });

  it("JOURNAL_STREAM naming another file (inherited, stderr redirected): lines keep their time", async () => {
    const lines = (await syncWithStderrFile("other")).trim().split("\n");
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines.slice(1)) expect(line).toMatch(/^\d\d:\d\d:\d\d /);
  });

  it("isJournalStream compares device and inode exactly", () => {
    expect(isJournalStream("8:1234", { dev: 8, ino: 1234 })).toBe(true);
    expect(isJournalStream("8:1234", { dev: 8n, ino: 1234n })).toBe(true);
    expect(isJournalStream("8:1235", { dev: 8, ino: 1234 })).toBe(false);
    expect(isJournalStream("", { dev: 8, ino: 1234 })).toBe(false);
    expect(isJournalStream("8:1234:5", { dev: 8, ino: 1234 })).toBe(false);
    expect(isJournalStream(undefined, { dev: 8, ino: 1234 })).toBe(false);
  });
});
