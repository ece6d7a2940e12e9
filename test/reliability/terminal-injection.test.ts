/**
 * Terminal safety (cli-contract "Untrusted text, paths and caches"): a service that puts escape
 * sequences, carriage returns, C1 controls, newlines and bidi overrides into names, e-mail,
 * error messages, codes and request ids never gets one of them to the terminal or a log in
 * human output (they are shown as `\x1b`, `\x0d`, `\u202e`…, one field on one line), while
 * `--json` carries the exact strings. Over a mock with a hostile fixture and a raw server.
 */
import { readFileSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockService } from "../../src/mock-server/index.js";
import type { Fixture, MockService } from "../../src/mock-server/types.js";
import { type RawServer, rawReply, startRawServer } from "../helpers/raw-server.js";
import { envFor, run, tempDir } from "./helpers/harness.js";

/** Clears the screen, sets the window title, returns the carriage, reverses the text, opens a C1 CSI, forges a line. */
const EVIL = "Evil\x1b[2J\x1b]0;pwned\x07\rHidden\u202eeman\u009b31m\u0085\u2066\nforged: all good";
/** What a terminal must never receive from outside text (newline aside, which ends our lines). */
const RAW_CONTROL =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the oracle of the test
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** Throws unless `text` holds no raw control/bidi character and no forged line. */
function assertTerminalSafe(text: string, where: string): void {
  expect(text, where).not.toMatch(RAW_CONTROL);
  for (const line of text.split("\n")) expect(line, where).not.toMatch(/^forged/);
}

/** The visible form of {@link EVIL}'s first escape, as a human sees it. */
const SHOWN = "Evil\\x1b[2J\\x1b]0;pwned\\x07\\x0dHidden\\u202eeman\\x9b31m\\x85\\u2066\\x0aforged";

function hostileFixture(): Fixture {
  const fx = JSON.parse(
    readFileSync(new URL("../../fixtures/default.json", import.meta.url), "utf8"),
  ) as Fixture;
  const slug = (fx.packs[0] as { slug: string }).slug;
  // a hostile slug never enters (refused by src/api/schemas.ts: test/api/slug.e2e.test.ts)
  const evilSlug = "evil-pack";
  fx.accounts = fx.accounts.map((a, i) =>
    i === 0 ? { ...a, name: EVIL, email: `x${EVIL}@example.com` } : a,
  );
  fx.apiKeys = fx.apiKeys.map((k, i) => (i === 0 ? { ...k, name: EVIL } : k));
  fx.packs = fx.packs.map((p) => (p.slug === slug ? { ...p, slug: evilSlug, name: EVIL } : p));
  fx.orders = fx.orders.map((o) => ({
    ...o,
    packs: o.packs.map((p) => (p === slug ? evilSlug : p)),
  }));
  fx.assets = fx.assets.map((a) => (a.pack === slug ? { ...a, pack: evilSlug } : a));
  return fx;
}

let mock: MockService;
let raw: RawServer;
const KEY = "svc_live_Term1nalInjectionKeyAbCdEf0123_0badc0de";

/** The spec's error object with hostile code, message and (optionally) request id. */
function hostileError(req: IncomingMessage, status: number, withBodyId: boolean): void {
  const body = JSON.stringify({
    error: {
      code: `denied${EVIL}`,
      message: EVIL,
      ...(withBodyId ? { request_id: `req_${EVIL}` } : {}),
    },
  });
  // raw bytes 0x9b (C1 CSI) and 0x85 (NEL) in the x-request-id header (read back as latin1)
  const head = Buffer.concat([
    Buffer.from(`HTTP/1.1 ${status} Nope\r\ncontent-type: application/json\r\nx-request-id: req_`),
    Buffer.from("\u009b2J\u0085_end", "latin1"),
    Buffer.from(`\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n`),
  ]);
  rawReply(req, Buffer.concat([head, Buffer.from(body)]));
}

beforeAll(async () => {
  mock = await startMockService({ quiet: true, fixture: hostileFixture(), packSize: 4096 });
  raw = await startRawServer((req, res) => {
    const path = (req.url ?? "").split("?")[0] ?? "";
    if (path === "/api/v1/packs") {
      const pack = (slug: string) => ({
        slug,
        name: slug,
        description: "",
        asset_count: 1,
        categories: [],
        purchased_at: "2025-01-01T00:00:00.000Z",
        order_id: "ord_1",
        downloads: { bundle: `${raw.url}/api/v1/packs/${slug}/download` },
      });
      const body = JSON.stringify({
        data: [pack("p-one"), pack("p-two")],
        pagination: { limit: 100, offset: 0, total: 2, has_more: false, next_cursor: null },
      });
      res.writeHead(200, { "content-type": "application/json" }).end(body);
      return;
    }
    hostileError(req, path === "/api/v1/me" ? 401 : 403, path !== "/api/v1/me");
  });
});
afterAll(async () => {
  await mock.close();
  await raw.close();
});

describe("hostile text from the service never reaches the terminal raw", () => {
  it("whoami and auth status escape name, e-mail and key name; --json keeps them exact", async () => {
    const cwd = tempDir();
    for (const args of [["whoami"], ["auth", "status"], ["whoami", "--verbose"]]) {
      const r = await run(args, { env: envFor(mock), cwd });
      expect(r.code, args.join(" ")).toBe(0);
      assertTerminalSafe(r.stdout, `stdout of ${args.join(" ")}`);
      assertTerminalSafe(r.stderr, `stderr of ${args.join(" ")}`);
      expect(r.stdout).toContain(`as ${SHOWN}`);
      expect(r.stdout).toContain(`<x${SHOWN}`);
    }
    const json = await run(["whoami", "--json"], { env: envFor(mock), cwd });
    const me = json.doc as { account: { name: string; email: string }; key: { name: string } };
    expect(me.account).toMatchObject({ name: EVIL, email: `x${EVIL}@example.com` });
    expect(me.key.name).toBe(EVIL);
  });

  it("auth login escapes what it says on stderr", async () => {
    const cwd = tempDir();
    const r = await run(["auth", "login", "--with-key"], {
      env: { SVC_BASE_URL: mock.baseUrl },
      cwd,
      input: mock.apiKey,
    });
    expect(r.code).toBe(0);
    assertTerminalSafe(r.stderr, "stderr of auth login");
    expect(r.stderr).toContain(`Key ${SHOWN}`);
  });

  it("packs list escapes slug and name in the table; --json keeps them exact", async () => {
    const cwd = tempDir();
    const r = await run(["packs", "list"], { env: envFor(mock), cwd });
    expect(r.code).toBe(0);
    assertTerminalSafe(r.stdout, "stdout of packs list");
    const row = r.stdout.split("\n").find((l) => l.startsWith("evil-"));
    expect(row).toContain(SHOWN);
    // the escaped cells keep the columns aligned: the next column starts where the header's does
    const header = r.stdout.split("\n")[0] ?? "";
    expect(row?.indexOf(SHOWN, 10)).toBe(header.indexOf("NAME"));
    const json = await run(["packs", "list", "--json"], { env: envFor(mock), cwd });
    const packs = json.doc as unknown as { slug: string; name: string }[];
    expect(packs.find((p) => p.name === EVIL)?.slug).toBe("evil-pack");
  });

  it("packs sync item and summary lines stay terminal-safe with a hostile pack name", async () => {
    const cwd = tempDir();
    const r = await run(["packs", "sync", join(cwd, "out"), "--include", "evil-*"], {
      env: envFor(mock),
      cwd,
    });
    expect(r.code).toBe(0);
    assertTerminalSafe(r.stderr, "stderr of packs sync");
    assertTerminalSafe(r.stdout, "stdout of packs sync");
    expect(r.stderr).toContain("pack 1/1  evil-pack");
    const dry = await run(["packs", "sync", join(cwd, "dry"), "--dry-run"], {
      env: envFor(mock),
      cwd,
    });
    assertTerminalSafe(dry.stdout, "stdout of packs sync --dry-run");
    expect(dry.stdout).toContain("evil-pack");
  });
});

describe("hostile errors: message, code, request id and x-request-id bytes", () => {
  it("the error line of whoami is escaped; --json carries the exact strings", async () => {
    const cwd = tempDir();
    const env = { SVC_BASE_URL: raw.url, SVC_API_KEY: KEY };
    const r = await run(["whoami", "--verbose"], { env, cwd });
    expect(r.code).not.toBe(0);
    assertTerminalSafe(r.stderr, "stderr of whoami");
    expect(r.stderr).toContain(`error: ${SHOWN}`);
    expect(r.stderr).toContain(`code denied${SHOWN}`);
    expect(r.stderr).toContain("request id req_\\x9b2J\\x85_end");
    const json = await run(["whoami", "--json"], { env, cwd });
    expect(json.error?.message).toBe(EVIL);
    expect(json.error?.code).toBe(`denied${EVIL}`);
    expect(json.error?.request_id).toBe("req_\u009b2J\u0085_end");
  });

  it("pack get: each item's failure line and the closing error are escaped", async () => {
    const cwd = tempDir();
    const env = { SVC_BASE_URL: raw.url, SVC_API_KEY: KEY };
    const r = await run(["pack", "get", "p-one", "p-two", "-o", `${join(cwd, "out")}/`], {
      env,
      cwd,
    });
    expect(r.code).not.toBe(0);
    assertTerminalSafe(r.stderr, "stderr of pack get");
    assertTerminalSafe(r.stdout, "stdout of pack get");
    expect(r.stderr).toContain(`pack 1/2 p-one: ${SHOWN}`);
    expect(r.stderr).toContain(`request id req_${SHOWN}`);
    const json = await run(["pack", "get", "p-one", "-o", `${join(cwd, "out")}/`, "--json"], {
      env,
      cwd,
    });
    expect(json.error?.message).toBe(EVIL);
    expect(json.error?.request_id).toBe(`req_${EVIL}`);
  });
});
