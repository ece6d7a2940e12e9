import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CODES, NO_COMMAND, renderHint } from "../../src/errors/codes.js";
import { createClient, type ErrorCode, SvcError } from "../../src/index.js";
import { runCli } from "../helpers/cli.js";
import { useMockService } from "../helpers/mock.js";

const shared = useMockService();
const env = () => ({ SVC_BASE_URL: shared.mock.baseUrl, SVC_API_KEY: shared.mock.apiKey });

interface JsonError {
  error: { code: string; hint: string | null; retryable: boolean };
}
const jsonError = (stderr: string): JsonError => JSON.parse(stderr.trim()) as JsonError;

describe("one error table: a hint given where the error is thrown wins over the table's", () => {
  it("-o - with --json: the hint names the way out, not the generic `--help`", async () => {
    const r = await runCli(["--json", "asset", "get", "free-sample-cube", "-o", "-"], {
      env: env(),
    });
    expect(r.code).toBe(2);
    const doc = jsonError(r.stderr);
    expect(doc.error.code).toBe("usage_error");
    expect(doc.error.hint).toBe("Write the file with -o PATH to get the --json document.");
    // following it gives the document
    const dir = mkdtempSync(join(tmpdir(), "svc-dl-hint-"));
    const ok = await runCli(["--json", "asset", "get", "free-sample-cube", "-o", `${dir}/`], {
      env: env(),
    });
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ slug: "free-sample-cube" });
  });

  it("a corrupt config file: the hint names that file", async () => {
    const { writeFileSync } = await import("node:fs");
    const configDir = mkdtempSync(join(tmpdir(), "svc-dl-cfg-"));
    writeFileSync(join(configDir, "config.json"), "{not json");
    const r = await runCli(["--json", "whoami"], {
      env: { ...env(), SVC_DL_CONFIG_DIR: configDir },
    });
    expect(r.code).toBe(2);
    const doc = jsonError(r.stderr);
    expect(doc.error.code).toBe("config_invalid");
    expect(doc.error.hint).toContain(join(configDir, "config.json"));
  });
});

describe("library errors carry the hint the CLI prints", () => {
  it("a not_found from the service has the table's hint, typed code and exit code", async () => {
    const c = createClient({ baseUrl: shared.mock.baseUrl, apiKey: shared.mock.apiKey });
    const dir = mkdtempSync(join(tmpdir(), "svc-dl-lib-hint-"));
    const err = await c.downloadPack("no-such-pack", { dir }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SvcError);
    const e = err as SvcError;
    const code: ErrorCode | string = e.code;
    expect(code).toBe("not_found");
    expect(e.exitCode).toBe(5);
    expect(e.retryable).toBe(false);
    expect(e.hint).toBe(renderHint("not_found", NO_COMMAND));
    expect(e.hint).toMatch(/No such published item/);
  });

  it("every row with a hint gives errors a defined hint outside any command", () => {
    // rows whose next step exists only for some facts of the thrower (`detail`)
    const onlyWithFacts = new Set<string>(["write_failed"]);
    for (const code of Object.keys(CODES) as ErrorCode[]) {
      const err = new SvcError("m", { code });
      const expected = renderHint(code, NO_COMMAND) ?? undefined;
      expect([code, err.hint]).toEqual([code, expected]);
      if (CODES[code].hint !== null && !onlyWithFacts.has(code)) {
        expect([code, typeof err.hint]).toEqual([code, "string"]);
      }
    }
  });
});
