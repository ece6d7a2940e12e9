import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockService } from "../../src/mock-server/index.js";
import type { MockService } from "../../src/mock-server/types.js";
import { hookEnv, runHook } from "../../src/run/on-item.js";
import { markdownCell, stepSummaryMarkdown } from "../../src/run/step-summary.js";
import { runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/files.js";
import { install, makeProject } from "../helpers/install.js";

/** --on-item hooks and the GitHub step summary (cli-contract "Operating unattended"). */

let mock: MockService;
let env: Record<string, string>;
let owned: string[];

beforeAll(async () => {
  mock = await startMockService({
    quiet: true,
    packSize: 8 * 1024,
    limits: { download: { quota: 1000, windowSeconds: 60 } },
  });
  env = {
    SVC_BASE_URL: mock.baseUrl,
    SVC_API_KEY: mock.apiKey,
    SVC_LICENSE_KEY: "SVC_LICENSE_0123456789",
  };
  const r = await runCli(["packs", "list", "--json"], { env });
  owned = (JSON.parse(r.stdout) as { slug: string }[]).map((p) => p.slug);
});
afterAll(async () => {
  await mock.close();
});

describe("--on-item", () => {
  it("runs once per settled item with its JSON, the three variables, the file in place, no key", async () => {
    const dir = tempDir();
    const out = tempDir();
    const hook = `cat > "${out}/$SVC_DL_ITEM_SLUG.json"; env > "${out}/$SVC_DL_ITEM_SLUG.env"; test -f "$SVC_DL_ITEM_PATH" && echo "$SVC_DL_ITEM_STATUS" > "${out}/$SVC_DL_ITEM_SLUG.present"`;
    const r = await runCli(["packs", "sync", dir, "--on-item", hook], { env });
    expect(r.code, r.stderr).toBe(0);
    for (const slug of owned) {
      const item = JSON.parse(readFileSync(join(out, `${slug}.json`), "utf8"));
      expect(item).toMatchObject({ slug, status: "downloaded" });
      expect(readFileSync(join(out, `${slug}.present`), "utf8").trim()).toBe("downloaded");
      const vars = readFileSync(join(out, `${slug}.env`), "utf8");
      expect(vars).toContain(`SVC_DL_ITEM_SLUG=${slug}`);
      expect(vars).toContain(`SVC_DL_ITEM_PATH=${item.path}`);
      expect(vars).not.toContain("SVC_API_KEY");
      expect(vars).not.toContain(mock.apiKey);
      expect(vars).not.toContain("SVC_LICENSE_KEY");
    }
  });

  it("a failing hook is a warning; every item still succeeds (install)", async () => {
    const project = makeProject();
    const r = await install(mock, project, ["--on-item", "echo hook-says-hi >&2; exit 3"]);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.items.every((i: { status: string }) => i.status !== "failed")).toBe(true);
    // with --json, stderr holds JSON lines only: the hook's own output is discarded
    const lines = r.stderr
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.length).toBe(doc.items.length);
    expect(lines[0].warning.code).toBe("hook_failed");
    expect(lines[0].warning.message).toMatch(/--on-item for .* exited with code 3/);
  });

  it("without --json the hook's output goes to stderr, never stdout", async () => {
    const dir = tempDir();
    const r = await runCli(
      [
        "asset",
        "get",
        "free-sample-cube",
        "-o",
        `${dir}/`,
        "--on-item",
        'echo "got $SVC_DL_ITEM_SLUG"',
      ],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("got free-sample-cube");
    expect(r.stdout).not.toContain("got ");
  });

  it("a hook that hangs is killed at the timeout and reported", async () => {
    const warnings: string[] = [];
    const marker = join(tempDir(), "late");
    const problem = await runHook(
      `sleep 30; touch "${marker}"`,
      { status: "downloaded", slug: "x", path: null },
      { env: {}, cwd: tmpdir(), output: undefined, warn: (m) => warnings.push(m), timeoutMs: 0 },
    );
    expect(problem).toMatch(/timed out after 0 s/);
    expect(existsSync(marker)).toBe(false);
  });

  it("hookEnv drops the keys and sets the item's variables", () => {
    const e = hookEnv(
      { SVC_API_KEY: "svc_live_x", SVC_LICENSE_KEY: "SVC_y", PATH: "/bin" },
      { status: "failed", slug: "a", path: null },
    );
    expect(e).toEqual({
      PATH: "/bin",
      SVC_DL_ITEM_STATUS: "failed",
      SVC_DL_ITEM_PATH: "",
      SVC_DL_ITEM_SLUG: "a",
    });
  });
});

describe("GITHUB_STEP_SUMMARY", () => {
  it("install and packs sync append a Markdown table; other commands do not", async () => {
    const summary = join(tempDir(), "summary.md");
    writeFileSync(summary, "# earlier step\n");
    const project = makeProject();
    const r = await install(mock, project, [], { GITHUB_STEP_SUMMARY: summary });
    expect(r.code).toBe(0);
    const dir = tempDir();
    const s = await runCli(["packs", "sync", dir], {
      env: { ...env, GITHUB_STEP_SUMMARY: summary },
    });
    expect(s.code).toBe(0);
    const g = await runCli(["pack", "get", ...owned.slice(0, 2), "-o", `${tempDir()}/`], {
      env: { ...env, GITHUB_STEP_SUMMARY: summary },
    });
    expect(g.code).toBe(0);
    const text = readFileSync(summary, "utf8");
    expect(text.startsWith("# earlier step\n")).toBe(true);
    expect(text).toContain("### svc-dl install: exit 0");
    expect(text).toContain("### svc-dl packs sync: exit 0");
    expect(text).not.toContain("pack get");
    expect(text).toContain(`| downloaded | ${owned.length} |`);
    expect(readdirSync(dir).length).toBeGreaterThan(0);
  });

  it("escapes Markdown and HTML in untrusted names and lists failures with codes", () => {
    expect(markdownCell("<img src=x onerror=alert(1)>|*x*\n# h")).toBe(
      "&lt;img src=x onerror=alert\\(1\\)&gt;\\|\\*x\\*\\\\x0a\\# h",
    );
    // the printers' rule (src/io/terminal-text.ts): bidi overrides and controls become visible
    const bidi = markdownCell("pack\u202eexe.zip\u2066x\u001b[31m");
    expect([...bidi].filter((c) => "\u202e\u2066\u001b".includes(c))).toEqual([]);
    expect(bidi).toBe("pack\\\\u202eexe\\.zip\\\\u2066x\\\\x1b\\[31m");
    const md = stepSummaryMarkdown({
      command: "packs sync",
      exitCode: 1,
      seconds: 2,
      doc: {
        complete: true,
        summary: {},
        items: [
          { status: "downloaded", slug: "a", bytes: 10 },
          {
            status: "failed",
            slug: "<b>evil|pack</b>",
            bytes: null,
            error: { code: "not_found", request_id: "req_1" },
          },
        ],
      },
    });
    expect(md).toContain("| &lt;b&gt;evil\\|pack&lt;/b&gt; | not\\_found | req\\_1 |");
    expect(md).toContain("2 items, 10 bytes, 2.0 s");
    expect(md).not.toContain("<b>");
  });
});
