import type { HintContext, HintDetail } from "./entry.js";

/**
 * The pieces the error table's hints are built from (src/errors/code-table/*-rows.ts): where to
 * look up a slug, where keys are made, where the proxy is set, what to do with a file in the
 * way or a refused link. Each names only the commands and flags the command at hand has
 * (cli-contract "Exit codes": a hint names a next step that exists).
 */

/** Where on the service's site API keys are made. */
export const KEYS_PAGE = "Account › Connections › API keys";
/** The last resort of a hint: support, with the request id. */
export const SUPPORT = "quote the request id to support if it persists";
/** The hint of an interrupted download: its partial data is kept to resume from. */
export const AGAIN =
  "Partial data kept: run the same command again to resume from the bytes already saved.";

/** Commands that download into files (and so keep partial data when interrupted). */
export const WRITES_FILES = new Set([
  "pack get",
  "asset get",
  "legacy get",
  "packs sync",
  "install",
  "verify",
]);

/** True when the item at hand is an asset: the thrower's `kind`, else the item or the command. */
function isAsset(c: HintContext, kind?: unknown): boolean {
  if (kind === "asset" || kind === "pack") return kind === "asset";
  return c.item ? c.item === "asset" : c.command.startsWith("asset") || c.given("--asset");
}

/** Where to look up a slug for the command at hand (`kind`: the thrower's, when it knows). */
export function slugSource(c: HintContext, kind?: unknown): string {
  if (isAsset(c, kind)) {
    return c.exists("assets list")
      ? "`svc-dl assets list` shows the assets you can download"
      : "use the slug exactly as the service shows it";
  }
  return "`svc-dl packs list` shows the packs you own";
}

/**
 * The next step after `not_entitled` (spec "Order payment", "POST /api/download"): a license
 * key that does not cover the item (`legacy get`); a pack the account's listing has (`listed`,
 * and every pack `packs sync` fetches), whose order is therefore not paid; an asset, which needs
 * its pack among the paid purchases; else a pack not bought.
 */
export function notEntitled(c: HintContext, d: HintDetail): string {
  const orders = "`svc-dl api orders` shows each order's payment status";
  if (c.command === "legacy get") {
    return "This license key does not cover this item: a license key covers the packs of its own order (or lifetime access). Use the license key of the order that bought it, or your API key with `svc-dl pack get` / `svc-dl asset get`.";
  }
  if (d.listed === true || c.command === "packs sync") {
    return `\`svc-dl packs list\` lists this pack, but the service refuses its download: the order it was bought with is not paid (an open refund or dispute), and new downloads stay unavailable until it is. ${capitalise(orders)}; settle the order on the service's site or contact support with the request id.`;
  }
  if (isAsset(c, d.kind)) {
    return `This premium asset needs its pack (or lifetime access) among the account's paid purchases; ${slugSource(c, "asset")}, and ${orders} (an order that is not paid gives no downloads).`;
  }
  return `This pack is not among the account's purchases; ${slugSource(c)} (a pack bought with an order that is not paid is listed there but cannot be downloaded: ${orders}).`;
}

/**
 * "file exists / not ours" next step, naming only flags the command has (`packs sync` and
 * `install` have neither `--force` nor `-o`: moving the file is their way).
 */
function otherDestination(c: HintContext): string {
  const ways = ["move the file away (a file identical to the served one is adopted)"];
  if (c.has("--force")) ways.push("use --force to overwrite it");
  if (c.has("--output")) ways.push("choose another name with -o");
  return `${capitalise(ways.join(", or "))}, then run the same command again.`;
}

/** Where the proxy is set, naming `--proxy` only where the command has it. */
export function proxyWays(c: HintContext): string {
  return `${c.has("--proxy") ? "--proxy, " : ""}HTTPS_PROXY, HTTP_PROXY, NO_PROXY`;
}

/**
 * The next step for a file in the way, from the thrower's facts: `archiveNotFile` (the archive
 * to extract is not a regular file), `path` with `extracting` (a file where an extraction puts
 * a folder or a file; nothing was changed) or `manifestDir` (in an install's `dir`); else
 * {@link otherDestination}.
 */
export function fileInTheWay(c: HintContext, d: HintDetail): string {
  if (d.archiveNotFile) return "Download the pack again without --extract, then with it.";
  // another item's file: `userChosen` (the -o name), else `getCommand` fetches it elsewhere
  if (d.userChosen) {
    return "Choose another name with -o, or use --force to give the name to this item.";
  }
  if (typeof d.getCommand === "string") {
    return `Both the server's name and the fallback name are taken by other items; fetch this one under a name of your choice: \`${d.getCommand}\`.`;
  }
  const what = typeof d.path === "string" ? d.path : "that file";
  if (d.extracting) return `Move ${what} away and run the same command again; nothing was changed.`;
  if (d.manifestDir) {
    return `Move ${what} away (or change \`dir\` in the manifest) and run \`svc-dl install\` again.`;
  }
  return otherDestination(c);
}

/**
 * The next step after a refused download link (`insecure_url`, `unsupported_scheme`): a
 * redirect has a request id to quote; a link from the service's record was refused before any
 * request, so there is none, and the item and the link (in the message) are what to report.
 */
export function reportLink(what: string, d: HintDetail): string {
  return d.link === "redirect"
    ? `The service redirected the download to ${what}; nothing was sent there. Report this to the service with the request id.`
    : `The service's record of this item gives ${what} to download from; svc-dl refused it before any request. Report this to the service, naming the item and the address above.`;
}

/**
 * The next step of a file-system failure (`no_space`, `permission_denied`, `write_failed`)
 * while svc-dl was not downloading: `during: "extract"` (nothing was extracted, the ZIP is
 * kept), `during: "cache"` (pruning the cache folder); undefined otherwise.
 */
export function duringHint(d: HintDetail): string | undefined {
  if (d.during === "extract") {
    return "Nothing was extracted; fix the cause and run the same command again (the ZIP is kept).";
  }
  if (d.during === "cache") {
    return "Make the cache writable, or point SVC_DL_CACHE_DIR at a directory you can write.";
  }
  return undefined;
}

/** The way round a refused cache: only `install` reads the cache, and only it has --no-cache. */
export function noCache(c: HintContext, d: HintDetail): string {
  if (c.has("--no-cache")) return ", or run with --no-cache";
  return d.doing === "check" && c.exists("install") ? ", or run install with --no-cache" : "";
}

/**
 * What a full disk's facts say (`free`: the bytes free, `written`: the file's bytes written, or
 * absent when none were; both as shown, `4.0 KiB`), as ` (the disk had …)`, or "".
 */
export function roomLeft(d: HintDetail): string {
  if (typeof d.free !== "string") return "";
  const when =
    typeof d.written === "string" ? `after ${d.written} of the file` : "before any of the file";
  return ` (the disk had ${d.free} free ${when} was written)`;
}

/** `s` with its first letter upper-case. */
function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** The hint of a key that no longer works (`what` says why): make a new one and give it. */
export const loginAgain = (what: string) => (c: HintContext) =>
  `${what} Create a new key under ${KEYS_PAGE}, then ${c.exists("auth login") ? "run `svc-dl auth login` or " : ""}set SVC_API_KEY.`;
