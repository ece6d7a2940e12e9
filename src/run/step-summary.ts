import { resolve } from "node:path";
import { appendOutputFile } from "../io/output-file.js";
import { counted } from "../io/plural.js";
import { terminalText } from "../io/terminal-text.js";
import { type RunDocument, statusCounts } from "./recorder.js";

/** What the step summary of one run shows. */
export interface StepSummaryFacts {
  command: string;
  doc: RunDocument;
  exitCode: number;
  /** Run duration in seconds. */
  seconds: number;
}

/** Failed items listed at most (a long list would drown the summary). */
const MAX_FAILURES = 20;

/**
 * Escapes untrusted text for a Markdown table cell: first the rule of every printer
 * (src/io/terminal-text.ts: C0/C1 controls, newlines included, and Unicode bidi/format
 * controls become visible escapes such as `\u202e`), line and paragraph separators become
 * spaces; then HTML special characters become entities, Markdown punctuation is
 * backslash-escaped and `|` cannot end the cell. A name can neither inject HTML, break the
 * table, nor reorder what a reader sees.
 */
export function markdownCell(text: string): string {
  return terminalText(text)
    .replace(/[\u2028\u2029]/g, " ")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/([\\`*_{}[\]()#+\-.!|~])/g, "\\$1");
}

/** The Markdown block: a heading, a status/count table, bytes and time, failed items. */
export function stepSummaryMarkdown(facts: StepSummaryFacts): string {
  const { doc, exitCode, seconds } = facts;
  const bytes = doc.items.reduce(
    (n, i) => n + (typeof i.bytes === "number" && i.status !== "failed" ? i.bytes : 0),
    0,
  );
  const state = doc.complete ? "" : ", stopped part-way";
  const lines = [
    `### svc-dl ${facts.command}: exit ${exitCode}${state}`,
    "",
    "| status | items |",
    "|---|---:|",
    ...statusCounts(doc.items).map(([status, n]) => `| ${markdownCell(status)} | ${n} |`),
    "",
    `${counted(doc.items.length, "item")}, ${counted(bytes, "byte")}, ${seconds.toFixed(1)} s`,
  ];
  if (doc.error) {
    lines.push(
      "",
      `Stopped: \`${markdownCell(doc.error.code)}\` ${markdownCell(doc.error.message)}`,
    );
  }
  // a lock mismatch is named too: the reader must know which item to update (cli-contract "Manifest, lock and cache")
  const failed = doc.items.filter((i) => i.status === "failed" || i.status === "lock-mismatch");
  if (failed.length > 0) {
    lines.push("", "| failed or mismatched item | code | request id |", "|---|---|---|");
    for (const item of failed.slice(0, MAX_FAILURES)) {
      const e = item.error;
      const code = e?.code ?? (item.status === "lock-mismatch" ? "lock_mismatch" : "");
      lines.push(
        `| ${markdownCell(String(item.slug ?? ""))} | ${markdownCell(code)} | ${markdownCell(e?.request_id ?? "")} |`,
      );
    }
    if (failed.length > MAX_FAILURES) lines.push("", `and ${failed.length - MAX_FAILURES} more`);
  }
  return `${lines.join("\n")}\n\n`;
}

/**
 * Appends the run's summary to the file `GITHUB_STEP_SUMMARY` names (cli-contract "GitHub
 * Actions step summary"; relative to `cwd`), with the one writer of files outside `.svc-dl/`
 * (src/io/output-file.ts: a regular file or nothing, never opened when it is a FIFO, device,
 * symlink or directory). Throws FileSystemError (exit 8): `unsafe_output_path`, or
 * `write_failed`, `no_space`, `permission_denied`.
 */
export async function appendStepSummary(
  cwd: string,
  file: string,
  facts: StepSummaryFacts,
): Promise<void> {
  appendOutputFile("GITHUB_STEP_SUMMARY file", resolve(cwd, file), stepSummaryMarkdown(facts));
}
