import { beforeAll, describe, expect, it } from "vitest";
import { SvcError } from "../src/errors/svc-error.js";
import { loadColour } from "../src/io/colour.js";
import * as z from "../src/io/schema.js";
import { DEFAULT_GLOBALS, Session } from "../src/session.js";
import { tempConfigDir } from "./helpers/cli.js";
import { treeContext } from "./helpers/program-tree.js";

function session(env: Record<string, string>): Session {
  const ctx = treeContext();
  return new Session(
    { ...ctx, env: { SVC_DL_CONFIG_DIR: tempConfigDir(), ...env } },
    DEFAULT_GLOBALS,
  );
}

beforeAll(() => loadColour());

describe("Session.http()", () => {
  it("builds one client per key choice instead of ignoring later options", async () => {
    const s = session({ SVC_BASE_URL: "http://127.0.0.1:9", SVC_API_KEY: "svc_live_env_key_000" });
    try {
      const a = await s.http({ apiKey: "svc_live_first_key_0000" });
      const b = await s.http({ apiKey: "svc_live_other_key_0000" });
      const keyless = await s.http({ needsKey: false });
      expect(a).not.toBe(b);
      expect(keyless).not.toBe(a);
      expect(await s.http({ apiKey: "svc_live_first_key_0000" })).toBe(a);
    } finally {
      await s.close();
    }
  });

  it("a keyless client asked to authenticate throws no_api_key (exit 3) before any request", async () => {
    const s = session({ SVC_BASE_URL: "http://127.0.0.1:9" });
    try {
      const client = await s.http({ needsKey: false });
      const err = await client.getJson(client.apiUrl("me"), z.unknown()).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(SvcError);
      expect((err as SvcError).code).toBe("no_api_key");
      expect((err as SvcError).exitCode).toBe(3);
    } finally {
      await s.close();
    }
  });

  it("without any key, asking for an authenticated client fails with no_api_key", async () => {
    const s = session({ SVC_BASE_URL: "http://127.0.0.1:9" });
    await expect(s.http()).rejects.toMatchObject({ code: "no_api_key", exitCode: 3 });
  });
});
