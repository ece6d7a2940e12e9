#!/usr/bin/env node
/**
 * After `svc-dl install` in the action (action.yml, cli-contract "Credentials, schedules and
 * offline runs": the action's outputs): reads the run's report and
 * - appends the step outputs `downloaded`, `cached` and `failed` (item counts; `failed` counts
 *   failed and lock-mismatched items) to GITHUB_OUTPUT;
 * - prints one `::error file=…::` workflow command per failed or mismatched item (on the lock
 *   for a lock mismatch, else on the manifest), or one for a run that stopped before its items,
 *   escaped by GitHub's workflow-command rules so no text from the service or a file can end
 *   the command or start another.
 *
 * Usage: node scripts/action/outputs.js REPORT LOCK MANIFEST  (paths relative to the workspace
 * for LOCK and MANIFEST: what the annotation names)
 */
import { appendFileSync, readFileSync } from "node:fs";

/** A workflow command's message: `%`, CR and LF escaped (GitHub's `escapeData`). */
export function escapeData(text) {
  return String(text).replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** A workflow command's property value: as {@link escapeData}, plus `:` and `,`. */
export function escapeProperty(text) {
  return escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/** `::error file=FILE,title=TITLE::MESSAGE` with every part escaped. */
export function errorCommand(file, title, message) {
  return `::error file=${escapeProperty(file)},title=${escapeProperty(title)}::${escapeData(message)}`;
}

/**
 * The outputs and annotations of the install report `doc` (parsed JSON, or undefined when it
 * could not be read). Returns `{ outputs: { downloaded, cached, failed }, annotations }`.
 */
export function actionOutputs(doc, files) {
  const summary = doc?.summary ?? {};
  const items = Array.isArray(doc?.items) ? doc.items : [];
  const bad = items.filter((i) => i?.status === "failed" || i?.status === "lock-mismatch");
  const annotations = bad.map((item) => {
    const code = item.error?.code ?? (item.status === "lock-mismatch" ? "lock_mismatch" : "failed");
    const onLock = code === "lock_mismatch" || item.status === "lock-mismatch";
    const name = `${item.kind ?? "item"} ${item.slug ?? "?"}${item.edition ? ` (${item.edition})` : ""}`;
    const why = item.error?.message ?? item.reason ?? item.status;
    return errorCommand(onLock ? files.lock : files.manifest, `svc-dl ${code}`, `${name}: ${why}`);
  });
  if (annotations.length === 0 && doc === undefined) {
    annotations.push(errorCommand(files.manifest, "svc-dl", "svc-dl wrote no report"));
  } else if (annotations.length === 0 && doc?.error) {
    const code = doc.error.code ?? "error";
    const file = code === "lock_mismatch" ? files.lock : files.manifest;
    annotations.push(errorCommand(file, `svc-dl ${code}`, doc.error.message ?? code));
  }
  const count = (n) => (Number.isInteger(n) && n >= 0 ? n : 0);
  return {
    outputs: {
      downloaded: count(summary.downloaded),
      cached: count(summary.from_cache),
      failed: bad.length,
    },
    annotations,
  };
}

if (process.argv[1]?.endsWith("outputs.js")) {
  const [report, lock, manifest] = process.argv.slice(2);
  let doc;
  try {
    doc = JSON.parse(readFileSync(report ?? "", "utf8"));
  } catch {
    doc = undefined;
  }
  const { outputs, annotations } = actionOutputs(doc, {
    lock: lock ?? "",
    manifest: manifest ?? "",
  });
  const out = process.env.GITHUB_OUTPUT;
  if (!out) throw new Error("GITHUB_OUTPUT is not set");
  appendFileSync(
    out,
    Object.entries(outputs)
      .map(([k, v]) => `${k}=${v}\n`)
      .join(""),
  );
  for (const line of annotations) process.stdout.write(`${line}\n`);
}
