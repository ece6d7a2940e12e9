import { appendFile } from "node:fs/promises";
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
 * Escapes untrusted text for a Markdown table cell: HTML special characters become entities,
 * Markdown punctuation is backslash-escaped, `|` cannot end the cell, and control characters
 * (newlines included) become spaces, so a name can neither inject HTML nor break the table.
 */
export function markdownCell(text: string): string {
  return (
    text
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are the point
      .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, " ")
      .replace(/&/g, "&amp;")
      .replace(/</g, "&lt;")
      .replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;")
      .replace(/([\\`*_{}[\]()#+\-.!|~])/g, "\\$1")
  );
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
    `${doc.items.length} items, ${bytes} bytes, ${seconds.toFixed(1)} s`,
  ];
  if (doc.error) {
    lines.push(
      "",
      `Stopped: \`${markdownCell(doc.error.code)}\` ${markdownCell(doc.error.message)}`,
    );
  }
  const failed = doc.items.filter((i) => i.status === "failed");
  if (failed.length > 0) {
    lines.push("", "| failed item | code | request id |", "|---|---|---|");
    for (const item of failed.slice(0, MAX_FAILURES)) {
      const e = item.error;
      lines.push(
        `| ${markdownCell(String(item.slug ?? ""))} | ${markdownCell(e?.code ?? "")} | ${markdownCell(e?.request_id ?? "")} |`,
      );
    }
    if (failed.length > MAX_FAILURES) lines.push("", `and ${failed.length - MAX_FAILURES} more`);
  }
  return `${lines.join("\n")}\n\n`;
}

/**
 * Appends the run's summary to the file `GITHUB_STEP_SUMMARY` names (cli-contract "GitHub
 * Actions step summary"). Throws an Error naming the file when it cannot be appended to.
 */
export async function appendStepSummary(file: string, facts: StepSummaryFacts): Promise<void> {
  try {
    await appendFile(file, stepSummaryMarkdown(facts));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(`cannot append to GITHUB_STEP_SUMMARY ${file}${code ? ` (${code})` : ""}`);
  }
}
