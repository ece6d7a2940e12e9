/**
 * The human output layer escapes outside text (cli-contract "Untrusted text, paths and caches"):
 * the reporter, tables, the error formatter and both progress renderers, so a printer added
 * later inherits the rule. svc-dl's own colours still reach a colour terminal.
 */
import { PassThrough, Writable } from "node:stream";
import { Chalk } from "chalk";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors/api-error.js";
import { loadColour } from "../../src/io/colour.js";
import { formatErrorForHumans } from "../../src/io/error-lines.js";
import { createProgress } from "../../src/io/progress.js";
import { createReporter } from "../../src/io/reporter.js";
import { renderTable } from "../../src/io/table.js";
import { Session } from "../../src/session.js";
import { testContext } from "../helpers/context.js";

const EVIL = "a\x1b]0;title\x07\rb\u202ec\u009b\nforged";
const SHOWN = "a\\x1b]0;title\\x07\\x0db\\u202ec\\x9b\\x0aforged";
// biome-ignore lint/suspicious/noControlCharactersInRegex: the oracle of the test
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/;

function sink(): { out: Writable; text: () => string } {
  let text = "";
  const out = new Writable({
    write(chunk, _enc, cb) {
      text += String(chunk);
      cb();
    },
  });
  return { out, text: () => text };
}

function io(out: Writable) {
  return {
    stdout: out,
    stderr: out,
    stdin: new PassThrough(),
    stdoutIsTTY: false,
    stderrIsTTY: false,
    stdinIsTTY: false,
  };
}

describe("reporter", () => {
  it("prints info, warnings and verbose lines escaped, one line per call", () => {
    const s = sink();
    const r = createReporter(io(s.out), {
      quiet: false,
      verbose: true,
      colour: new Chalk({ level: 0 }),
    });
    r.info(`i ${EVIL}`);
    r.warn("hook_failed", `w ${EVIL}`);
    r.warn("not_found", "m", `own ${EVIL}`);
    r.verbose(`v ${EVIL}`);
    expect(s.text()).toBe(
      `i ${SHOWN}\nwarning: w ${SHOWN} (hook_failed)\nown ${SHOWN}\nv ${SHOWN}\n`,
    );
  });

  it("colours after escaping: svc-dl's own colour codes stay, the outside ones do not", () => {
    const s = sink();
    const colour = new Chalk({ level: 1 });
    createReporter(io(s.out), { quiet: false, verbose: false, colour }).warn(
      "hook_failed",
      "m",
      EVIL,
    );
    expect(s.text()).toBe(`${colour.yellow(SHOWN)}\n`);
  });
});

describe("JSON warning lines: one shape, code always present", () => {
  it("every warning is {warning:{code,message}}, the caller's own human wording left out", () => {
    const s = sink();
    const r = createReporter(io(s.out), {
      quiet: true,
      json: true,
      verbose: false,
      colour: new Chalk({ level: 0 }),
    });
    r.warn("env_overrides_config", "SVC_API_KEY is set");
    r.warn("not_found", "asset x: no such asset", "asset x: no such asset (not_found)");
    const lines = s
      .text()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as unknown);
    expect(lines).toEqual([
      { warning: { code: "env_overrides_config", message: "SVC_API_KEY is set" } },
      { warning: { code: "not_found", message: "asset x: no such asset" } },
    ]);
  });
});

describe("session.print", () => {
  it("escapes each line; several lines are an array", async () => {
    await loadColour();
    const t = testContext({});
    const session = new Session(t.ctx, {
      json: false,
      quiet: false,
      progress: true,
      verbose: false,
      color: false,
      maxWait: 0,
      waitLock: 0,
    });
    session.print(EVIL);
    session.print(["one", `two ${EVIL}`]);
    expect(t.stdout.text).toBe(`${SHOWN}\none\ntwo ${SHOWN}\n`);
  });
});

describe("renderTable", () => {
  it("escapes cells before measuring them, so columns stay aligned", () => {
    const lines = renderTable(
      ["SLUG", "NAME"],
      [
        [EVIL, "x"],
        ["short", "y"],
      ],
    );
    expect(lines).toEqual([
      `SLUG${" ".repeat(SHOWN.length - 4)}  NAME`,
      `${SHOWN}  x`,
      `short${" ".repeat(SHOWN.length - 5)}  y`,
    ]);
  });
});

describe("formatErrorForHumans", () => {
  const err = new ApiError({
    code: `bad${EVIL}`,
    message: EVIL,
    httpStatus: 403,
    requestId: `req_${EVIL}`,
  });

  it("escapes the message, the code and the request id", () => {
    const text = formatErrorForHumans(err, new Chalk({ level: 0 }), false);
    expect(text.split("\n")[0]).toBe(
      `error: ${SHOWN} (code bad${SHOWN}, HTTP 403, request id req_${SHOWN})`,
    );
    expect(text).not.toMatch(RAW_CONTROL);
  });

  it("with --verbose the stack's message stays on its line, escaped", () => {
    const text = formatErrorForHumans(err, new Chalk({ level: 0 }), true);
    expect(text).not.toMatch(RAW_CONTROL);
    expect(text.split("\n").filter((l) => l.startsWith("forged"))).toEqual([]);
    expect(text).toContain(`ApiError: ${SHOWN}`);
  });

  it("keeps its own colours on a colour terminal", () => {
    const colour = new Chalk({ level: 1 });
    const text = formatErrorForHumans(err, colour, false);
    expect(text.startsWith(`${colour.red("error:")} ${SHOWN}`)).toBe(true);
  });
});

describe("progress", () => {
  for (const isTTY of [false, true]) {
    it(`${isTTY ? "the bar" : "plain lines"} print file names and labels escaped`, async () => {
      const s = sink();
      const p = await createProgress({
        stderr: s.out,
        isTTY,
        progress: true,
        quiet: false,
        now: () => 0,
        columns: 200,
      });
      p.start({ name: EVIL, total: 10, offset: 0, label: `pack 1/1 ${EVIL}` });
      p.advance(10);
      p.done({ name: EVIL, bytes: 10, resumedFrom: 0, outcome: "downloaded" });
      p.stop();
      // the bar's own cursor control is svc-dl's; what is left must hold no outside control
      // biome-ignore lint/suspicious/noControlCharactersInRegex: removing the bar's own CSI codes
      const text = s.text().replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");
      expect(text).not.toMatch(RAW_CONTROL);
      expect(text).toContain(`pack 1/1 ${SHOWN}`);
      expect(text).toContain(`${SHOWN}  10 B`);
    });
  }
});
