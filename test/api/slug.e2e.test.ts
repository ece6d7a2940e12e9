import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { slugProblem } from "../../src/api/slug.js";
import { startMockService } from "../../src/mock-server/index.js";
import type { MockService } from "../../src/mock-server/types.js";
import { runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/files.js";
import { type FrontServer, startFrontServer } from "../helpers/front-server.js";

/**
 * Slugs from the service are checked once, where they enter (src/api/schemas.ts with the one
 * rule of src/api/slug.ts), before any name, hook or log line uses them (cli-contract
 * "Untrusted text, paths and caches").
 */

let mock: MockService;
beforeAll(async () => {
  mock = await startMockService({ quiet: true, packSize: 2 * 1024 });
});
afterAll(async () => {
  await mock.close();
});

/** A front of the mock whose pack listing renames its first pack to `slug`. */
function frontWithSlug(slug: string): Promise<FrontServer> {
  return startFrontServer(
    mock.baseUrl,
    () => false,
    (path, body) => {
      if (!path.startsWith("/api/v1/packs?")) return body;
      const page = body as { data: { slug: string }[] };
      const [first, ...rest] = page.data;
      return { ...page, data: [{ ...first, slug }, ...rest] };
    },
  );
}

describe("a slug from the service", () => {
  it("the rule: no newline, no /, no bidi or zero-width character, not . or ..", () => {
    for (const bad of ["a\nb", "a/b", "a\\b", "..", "", "x\u202egpj", "x\u200by", "a\u2028b"]) {
      expect(slugProblem(bad), JSON.stringify(bad)).toBeDefined();
    }
    for (const good of ["low-poly-forest", "pack_2", "forêt"]) {
      expect(slugProblem(good)).toBeUndefined();
    }
  });

  for (const [name, slug] of [
    ["a newline", "evil\nSVC_DL_ITEM_STATUS=downloaded"],
    ["a slash", "../../etc/evil"],
  ] as const) {
    it(`with ${name} refuses the listing (exit 7): no file, no hook, no request for a pack`, async () => {
      const front = await frontWithSlug(slug);
      const dir = tempDir();
      const hookLog = join(tempDir(), "hook.log");
      try {
        const r = await runCli(
          ["packs", "sync", dir, "--json", "--on-item", `echo "$SVC_DL_ITEM_SLUG" >> ${hookLog}`],
          { env: { SVC_BASE_URL: front.url, SVC_API_KEY: mock.apiKey } },
        );
        expect(r.code).toBe(7);
        const err = JSON.parse(r.stderr.trim().split("\n").pop() ?? "").error;
        expect(err.code).toBe("unexpected_response");
        expect(err.message).toMatch(/data\.0\.slug: is not a usable slug/);
        expect(front.paths.filter((p) => p.includes("/download"))).toEqual([]);
      } finally {
        await front.close();
      }
      expect(readdirSync(dir).filter((n) => n !== ".svc-dl")).toEqual([]);
      expect(existsSync(hookLog)).toBe(false);
    });
  }

  it("with a newline: packs list refuses it too, and prints no forged line", async () => {
    const front = await frontWithSlug("forest\nerror: forged line");
    try {
      const r = await runCli(["packs", "list"], {
        env: { SVC_BASE_URL: front.url, SVC_API_KEY: mock.apiKey },
      });
      expect(r.code).toBe(7);
      expect(r.stdout).toBe("");
      expect(r.stderr).not.toMatch(/^error: forged line/m);
    } finally {
      await front.close();
    }
  });
});
