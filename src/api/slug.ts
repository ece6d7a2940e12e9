/**
 * The one rule for a slug (spec "Resources and their fields": the identifier a pack or asset is
 * named by in paths), wherever one enters svc-dl: from the service (pack and asset records, the
 * account's owned slugs: src/api/schemas.ts), the command line (src/outdir/names.ts) and the
 * manifest (src/install/manifest.ts). A slug becomes part of request paths, file names, hook
 * environments (`SVC_DL_ITEM_SLUG`) and log lines, so it may not be empty, `.` or `..`, or
 * hold `/`, `\`, a control character (newline included), a
 * Unicode format character (bidi overrides, zero-width characters) or a line or paragraph
 * separator (cli-contract "Untrusted text, paths and caches").
 */

/**
 * Why `slug` is not a usable slug (`"may not contain / or \\"`, …), or undefined when it is.
 * Never throws.
 */
export function slugProblem(slug: string): string | undefined {
  if (slug.trim() === "") return "is empty";
  if (slug === "." || slug === "..") return `may not be "${slug}"`;
  if (/[/\\]/.test(slug)) return "may not contain / or \\";
  if (/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(slug)) {
    return "may not contain control, format or line-separator characters";
  }
  return undefined;
}
