import type { HintDetail } from "./errors/codes.js";

/**
 * The domain of svc-dl (cli-contract "JSON documents"): the types the rest of the code and the
 * library's public types are built from. The documents `--json` prints (and the library
 * returns) are declared once, as zod schemas in src/documents/, with their types inferred from
 * them there. Imports nothing.
 */

/** What can be downloaded: a pack (a ZIP with editions) or a single asset. */
export type ItemKind = "pack" | "asset";

/** A pack's edition (spec "Pack": `downloads.bundle` is standard, `downloads.authoring`). */
export type Edition = "standard" | "authoring";

/** A pack's edition, as `packs sync` names its targets. */
export type PackEdition = Edition;

/** `packs sync --edition`: one edition, or both where the pack has an authoring one. */
export type EditionChoice = Edition | "all";

/**
 * Time for code that waits (retry backoff, rate-limit waits, the directory lock's polling):
 * `now()` in ms since the epoch; `sleep(ms, signal)` rejects when `signal` aborts. One per run:
 * the system clock, or a manual one in tests, so no test waits real seconds.
 */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Identifies a downloadable item: a pack edition or an asset (`edition` null). */
export interface ItemRef {
  kind: ItemKind;
  slug: string;
  edition: Edition | null;
}

/**
 * Where one item's bytes are requested (spec "Downloads"): the first request of every download
 * attempt, sent again whenever a fresh signed CDN URL is needed. Built by `api/download-source.ts`
 * (pack and asset routes) and `api/legacy-download.ts` (legacy `POST /api/download`).
 */
export interface DownloadSource {
  url: URL;
  method?: "GET" | "POST";
  /** Request body (legacy JSON); never re-sent to a redirect target. */
  body?: string;
  /** Extra request headers (lower-case), e.g. `content-type`. */
  headers?: Record<string, string>;
  /** Send the API key (service origin only). Default true; false for legacy. */
  authenticate?: boolean;
  /**
   * What the caller knows about the item, for the hint of a refusal (`listed`: the account's
   * pack listing has it, so a `not_entitled` means its order is not paid); see src/errors/codes.ts.
   */
  facts?: HintDetail;
}
