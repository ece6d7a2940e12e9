import { describe, expect, it } from "vitest";
import { SvcError } from "../../src/errors/svc-error.js";
import type { PackEdition } from "../../src/model.js";
import type { PlannedItem } from "../../src/sync/plan.js";
import {
  dryRunTable,
  failureLines,
  incompleteError,
  itemOutcomeLine,
  itemStartLine,
  summaryLine,
} from "../../src/sync/report.js";
import { summarize } from "../../src/sync/summary.js";
import type {
  ItemError,
  SyncDocument,
  SyncItemResult,
  SyncReason,
  SyncStatus,
} from "../../src/sync/types.js";

/**
 * Human output of `packs sync` (cli-contract "packs sync", "Streams and output", "Exit codes":
 * plain lines, every error naming its code and request id; `--dry-run` lists what would be
 * downloaded and why).
 */

const MiB = 1024 * 1024;
const AUTHORING_IF_ANY = "authoring edition, if the pack has one";
// biome-ignore lint/suspicious/noControlCharactersInRegex: looking for escape sequences
const ESC = /\u001b/;

function item(
  slug: string,
  status: SyncStatus,
  reason: SyncReason | null,
  more: Partial<SyncItemResult> = {},
): SyncItemResult {
  return {
    slug,
    edition: "standard",
    status,
    reason,
    path: null,
    bytes: null,
    sha256: null,
    error: null,
    ...more,
  };
}

function failed(slug: string, error: Partial<ItemError> = {}, edition: PackEdition = "standard") {
  return item(slug, "failed", "new", {
    edition,
    error: {
      code: "not_entitled",
      message: `you do not own ${slug}`,
      http_status: 403,
      request_id: `req_${slug}`,
      hint: `buy ${slug} first`,
      ...error,
    },
  });
}

function doc(items: SyncItemResult[]): SyncDocument {
  return { dir: "/data/packs", items, summary: { ...summarize(items), filtered: 0 } };
}

function planned(
  slug: string,
  edition: PackEdition,
  action: PlannedItem["action"],
  reason: SyncReason,
): PlannedItem {
  return {
    target: { slug, edition, url: `https://cdn.test/${slug}.zip` },
    action,
    reason,
    recorded: undefined,
  };
}

describe("itemStartLine", () => {
  it("gives the overall position, the item and why it is fetched", () => {
    const line = itemStartLine(planned("low-poly-forest", "authoring", "fetch", "new"), 3, 12);
    expect(line).toBe("pack 3/12  low-poly-forest (authoring): new");
  });

  it.each<[PlannedItem["action"], SyncReason, RegExp]>([
    ["fetch", "missing locally", /: missing locally$/],
    ["fetch", "size differs", /: size differs$/],
    ["fetch", "changed locally", /: changed locally$/],
    ["revalidate", "already complete", /: checking for changes$/],
  ])("%s / %s", (action, reason, ending) => {
    const line = itemStartLine(planned("forest", "standard", action, reason), 1, 1);
    expect(line).toMatch(/^pack 1\/1 {2}forest \(standard\)/);
    expect(line).toMatch(ending);
  });
});

describe("itemOutcomeLine", () => {
  it("says that a pack has no authoring edition", () => {
    const line = itemOutcomeLine(
      item("desert", "unavailable", "no authoring edition", { edition: "authoring" }),
    );
    expect(line).toContain("desert (authoring)");
    expect(line).toContain("no authoring edition");
  });

  it("names a failure's message, code, HTTP status and request id", () => {
    const line = itemOutcomeLine(failed("forest"));
    for (const part of [
      "forest (standard)",
      "you do not own forest",
      "not_entitled",
      "403",
      "req_forest",
    ]) {
      expect(line).toContain(part);
    }
  });

  it("leaves out the HTTP status and request id of a failure without a response", () => {
    const line = itemOutcomeLine(
      failed("forest", { code: "network_error", http_status: null, request_id: null }),
    );
    expect(line).toContain("network_error");
    expect(line).not.toContain("null");
    expect(line).not.toContain("HTTP");
    expect(line).not.toContain("request id");
  });

  it.each<SyncStatus>(["downloaded", "resumed", "repaired", "adopted", "up-to-date"])(
    "adds nothing for %s (the file progress describes it)",
    (status) => {
      expect(itemOutcomeLine(item("forest", status, "new"))).toBeUndefined();
    },
  );
});

describe("summaryLine", () => {
  const run = doc([
    item("a", "downloaded", "new", { bytes: 1 * MiB }),
    item("b", "resumed", "missing locally", { bytes: 2 * MiB }),
    item("c", "repaired", "changed locally", { bytes: 512 * 1024 }),
    item("d", "up-to-date", "already complete", { bytes: 100 * MiB }),
    item("e", "adopted", "new", { bytes: 100 * MiB }),
    item("f", "unavailable", "no authoring edition", { edition: "authoring" }),
    failed("g"),
  ]);

  it("counts what a run did, and the bytes it moved", () => {
    const line = summaryLine(run, false);
    expect(line).toContain("/data/packs");
    expect(line).toContain("7 pack files");
    expect(line).toContain("3 downloaded");
    expect(line).toContain("2 up to date");
    expect(line).toContain("1 without an authoring edition");
    expect(line).toContain("1 failed");
    expect(line).toContain("1 adopted");
    expect(line).toContain("1 repaired");
    // 1 MiB + 2 MiB + 0.5 MiB fetched; files already in place do not count.
    expect(line).toContain("3.5 MiB");
    expect(line).not.toMatch(/would|nothing was written/);
    expect(line).not.toMatch(ESC);
  });

  it("an all-up-to-date run: nothing downloaded, no bytes, no optional counts", () => {
    const line = summaryLine(
      doc([item("a", "up-to-date", "already complete", { bytes: 9 })]),
      false,
    );
    expect(line).toContain("1 pack file,");
    expect(line).toContain("0 downloaded");
    expect(line).toContain("1 up to date");
    expect(line).toContain("0 failed");
    expect(line).not.toMatch(/authoring|adopted|repaired|B\)/);
  });

  it("a dry run says what would be downloaded and that nothing was written", () => {
    const line = summaryLine(
      doc([
        item("a", "would-download", "new"),
        item("b", "would-download", "size differs"),
        item("c", "would-download", AUTHORING_IF_ANY, { edition: "authoring" }),
        item("d", "up-to-date", "already complete"),
        item("e", "unavailable", "no authoring edition", { edition: "authoring" }),
      ]),
      true,
    );
    expect(line).toContain("dry run");
    expect(line).toContain("/data/packs");
    expect(line).toContain("5 pack files");
    expect(line).toContain("2 would be downloaded");
    expect(line).toContain("1 authoring edition would be asked for, if the pack has one");
    expect(line).toContain("1 up to date");
    expect(line).toContain("1 without an authoring edition");
    expect(line).toContain("nothing was written");
    expect(line).not.toMatch(ESC);
  });

  it("a dry run with several maybe authoring editions uses the plural", () => {
    const line = summaryLine(
      doc([
        item("a", "would-download", AUTHORING_IF_ANY, { edition: "authoring" }),
        item("b", "would-download", AUTHORING_IF_ANY, { edition: "authoring" }),
      ]),
      true,
    );
    expect(line).toContain("0 would be downloaded");
    expect(line).toContain("2 authoring editions would be asked for, if the packs have one");
  });

  it("a dry run with nothing to ask for does not mention authoring editions", () => {
    const line = summaryLine(doc([item("a", "up-to-date", "already complete")]), true);
    expect(line).toContain("0 would be downloaded");
    expect(line).not.toContain("authoring");
  });
});

describe("failureLines", () => {
  it("one line per failed item, with slug, edition, code, message, HTTP status, request id", () => {
    const lines = failureLines(
      doc([
        item("ok", "downloaded", "new"),
        failed("forest"),
        failed("desert", { code: "file_exists", http_status: null, request_id: null }, "authoring"),
      ]),
    );
    expect(lines).toHaveLength(2);
    const [first, second] = lines;
    for (const part of [
      "forest (standard)",
      "not_entitled",
      "you do not own forest",
      "403",
      "req_forest",
    ]) {
      expect(first).toContain(part);
    }
    expect(second).toContain("desert (authoring)");
    expect(second).toContain("file_exists");
    expect(second).not.toContain("null");
  });

  it("no failures, no lines", () => {
    expect(failureLines(doc([item("ok", "up-to-date", "already complete")]))).toEqual([]);
  });
});

describe("dryRunTable (the --dry-run data on stdout)", () => {
  /** The table's rows as cells (columns are separated by at least two spaces). */
  const cells = (table: readonly string[] | undefined) =>
    (table ?? []).map((line) => line.split(/ {2,}/));

  it("lists what would be downloaded and why, with a header", () => {
    const table = dryRunTable(
      doc([
        item("forest", "would-download", "new"),
        item("forest", "would-download", AUTHORING_IF_ANY, { edition: "authoring" }),
        item("desert", "up-to-date", "already complete"),
        item("desert", "unavailable", "no authoring edition", { edition: "authoring" }),
        item("sci-fi", "would-download", "missing locally"),
        item("rocks", "would-download", "changed upstream"),
        failed("broken"),
      ]),
    );
    const rows = cells(table);
    expect(rows[0]).toEqual(["SLUG", "EDITION", "REASON"]);
    const body = rows.slice(1);
    expect(body).toHaveLength(4);
    expect(body).toEqual(
      expect.arrayContaining([
        ["forest", "standard", "new"],
        ["sci-fi", "standard", "missing locally"],
        ["rocks", "standard", "changed upstream"],
        ["forest", "authoring", AUTHORING_IF_ANY],
      ]),
    );
    expect(table?.join("\n")).not.toMatch(ESC);
  });

  it("lists the certain downloads before the authoring editions that may not exist", () => {
    const rows = cells(
      dryRunTable(
        doc([
          item("a", "would-download", AUTHORING_IF_ANY, { edition: "authoring" }),
          item("b", "would-download", "new"),
        ]),
      ),
    ).slice(1);
    expect(rows.map((r) => r[0])).toEqual(["b", "a"]);
  });

  it("is undefined when nothing would be downloaded", () => {
    expect(
      dryRunTable(
        doc([
          item("a", "up-to-date", "already complete"),
          item("b", "unavailable", "no authoring edition", { edition: "authoring" }),
        ]),
      ),
    ).toBeUndefined();
    expect(dryRunTable(doc([]))).toBeUndefined();
  });
});

describe("incompleteError (exit 1: packs sync finished with some items failed)", () => {
  it("is an SvcError sync_incomplete, exit 1, naming each failed item's code and request id", () => {
    const err = incompleteError(
      doc([
        item("ok", "downloaded", "new"),
        failed("forest"),
        failed("desert", { code: "internal_error", http_status: 500 }, "authoring"),
      ]),
    );
    expect(err).toBeInstanceOf(SvcError);
    expect(err.code).toBe("sync_incomplete");
    expect(err.exitCode).toBe(1);
    expect(err.message).toMatch(/^2 of 3 pack files failed/);
    for (const part of ["forest (standard)", "not_entitled", "req_forest"]) {
      expect(err.message).toContain(part);
    }
    for (const part of ["desert (authoring)", "internal_error", "req_desert"]) {
      expect(err.message).toContain(part);
    }
    expect(err.message).not.toContain("ok (standard)");
    expect(err.hint).toBeTruthy();
  });

  it("does not print a request id when no request was made", () => {
    const err = incompleteError(doc([failed("forest", { code: "file_exists", request_id: null })]));
    expect(err.message).toContain("file_exists");
    expect(err.message).not.toContain("request id");
    expect(err.message).not.toContain("null");
  });

  it("names the first ten failed items and counts the rest", () => {
    const slugs = Array.from({ length: 13 }, (_, i) => `pack-${String(i + 1).padStart(2, "0")}`);
    const err = incompleteError(doc(slugs.map((s) => failed(s))));
    expect(err.message).toMatch(/^13 of 13 pack files failed/);
    for (const s of slugs.slice(0, 10)) expect(err.message).toContain(`req_${s}`);
    for (const s of slugs.slice(10)) expect(err.message).not.toContain(s);
    expect(err.message).toContain("3 more");
  });
});
