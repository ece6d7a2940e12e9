import { ExitCode, type ExitCodeValue } from "../exit-codes.js";

/**
 * The shape of a row of the error table (src/errors/codes.ts; cli-contract "Exit codes", spec
 * "Errors"), what its hint may refer to, and the row constructors the row files share: one per
 * kind of failure (a usage mistake, a configuration error, a server fault, the local file
 * system, a refused key or account, the outcome of a run).
 */

/** What a hint may refer to: the command being run and the commander tree around it. */
export interface HintContext {
  /** The command at hand, as typed without the program name (`"asset get"`, `"packs sync"`), or `""`. */
  readonly command: string;
  /** True when the command at hand (or the program, for global options) takes this flag (`"--edition"`). */
  has(flag: string): boolean;
  /** True when the program has this command (`"assets list"`). */
  exists(command: string): boolean;
  /** True when this flag was given on the command line of the run (`"--edition"`). */
  given(flag: string): boolean;
  /** The kind of the item at hand, for the hint of one item of a run over several (`install`). */
  readonly item?: "pack" | "asset";
}

/**
 * The facts a thrower knows about one failure (a path, the file name, whether the partial data
 * is kept), which a row's hint may name: `new SvcError(msg, { code, detail: { path } })`.
 * Values are plain text or numbers; absent keys mean the thrower does not know.
 */
export type HintDetail = Readonly<Record<string, string | number | boolean | undefined>>;

/**
 * A hint: fixed text, or text built for the command at hand and the thrower's facts; null when
 * there is no next step.
 */
export type Hint = string | ((c: HintContext, detail: HintDetail) => string | null);

/**
 * What a failure stops in a run over several items (`packs sync`, `install`, several slugs,
 * `verify --repair`; cli-contract "packs sync"): `account` and `run` end the run at once with
 * the error's own exit code (the key or the account is refused; or every later item would fail
 * the same way: configuration, disk, rate limit past --max-wait, interruption); `item` fails
 * that item only and the run goes on.
 */
export type Scope = "account" | "run" | "item";

/** One row of the table. */
export interface CodeEntry {
  /** `"status"`: by the HTTP status of the answer, as for an unlisted code ({@link exitCodeFor}). */
  readonly exitCode: ExitCodeValue | "status";
  /**
   * Running the same command again later may succeed; `"items"` for the outcome of a run over
   * several items: true when any failed item's code is retryable.
   */
  readonly retryable: boolean | "items";
  readonly scope: Scope;
  readonly hint: Hint | null;
}

/** A mistake in one item's arguments (a slug, a flag): that item fails. */
export const usage = (hint: Hint | null = null): CodeEntry => ({
  exitCode: ExitCode.usage,
  retryable: false,
  scope: "item",
  hint,
});
/** A configuration error (base URL, proxy, CA file, key, manifest): every item would fail alike. */
export const config = (hint: Hint | null): CodeEntry => ({ ...usage(hint), scope: "run" });
/** A fault of the server or of the way to it: that item fails, and may succeed later. */
export const server = (hint: Hint | null): CodeEntry => ({
  exitCode: ExitCode.network,
  retryable: true,
  scope: "item",
  hint,
});
/**
 * A failure on the way to the service that running again would not mend (DNS, TLS, a proxy, a
 * link or archive svc-dl refuses): that item fails.
 */
export const lasting = (hint: Hint): CodeEntry => ({ ...server(hint), retryable: false });
/** The local file system: the directory or the disk, so the run stops (unless `item`). */
export const local = (hint: Hint | null, retryable = false, scope: Scope = "run"): CodeEntry => ({
  exitCode: ExitCode.fileSystem,
  retryable,
  scope,
  hint,
});
/** The key or the account is refused: every later request would be too. */
export const account = (exitCode: ExitCodeValue, hint: Hint, retryable = false): CodeEntry => ({
  exitCode,
  retryable,
  scope: "account",
  hint,
});
/** The outcome of a whole run over several items (or of the run as a whole). */
export const outcome = (
  exitCode: ExitCodeValue,
  hint: Hint | null,
  retryable: CodeEntry["retryable"],
) => ({ exitCode, retryable, scope: "run", hint }) satisfies CodeEntry;
