/**
 * What the running build of svc-dl contains, for `svc-dl --version --verbose` and `doctor`
 * (cli-contract "Commands": global options).
 */

/**
 * Defined by scripts/build.js in the program bundle only (dist/cli.js and its chunks): the
 * version of the undici copy inlined there. Absent when svc-dl runs from source.
 */
declare const SVC_DL_BUNDLED_UNDICI: string | undefined;

/**
 * The undici version inlined into the program bundle, or undefined when the program runs from
 * its sources (undici then comes from node_modules, as it does for the library).
 */
export function bundledUndiciVersion(): string | undefined {
  return typeof SVC_DL_BUNDLED_UNDICI === "string" ? SVC_DL_BUNDLED_UNDICI : undefined;
}

/**
 * The text of `svc-dl --version --verbose`: svc-dl's version, then Node's and the bundled
 * undici's, one per line, ending in a newline.
 */
export function verboseVersion(version: string): string {
  const undici = bundledUndiciVersion();
  return [
    version,
    `node ${process.versions.node} (${process.platform} ${process.arch})`,
    undici === undefined ? "undici from node_modules (not bundled)" : `undici ${undici} (bundled)`,
  ]
    .map((line) => `${line}\n`)
    .join("");
}
