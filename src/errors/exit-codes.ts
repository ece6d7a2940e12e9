/**
 * The process exit codes of svc-dl, named once (cli-contract "Exit codes"). Code that picks an
 * exit code uses these names, never bare numbers.
 */
export const ExitCode = {
  /** Success, including "already up to date". */
  ok: 0,
  /** Unexpected failure; a multi-item run (`packs sync`, several slugs) with some items failed. */
  failure: 1,
  /** Usage or configuration error. */
  usage: 2,
  /** Authentication failed, or no API key configured. */
  auth: 3,
  /** Not permitted (`api_disabled`, `not_eligible`, `blocked`, `insufficient_scope`, `not_entitled`). */
  forbidden: 4,
  /** Not found (`not_found`, `file_unavailable`). */
  notFound: 5,
  /** Still rate limited after the wait budget. */
  rateLimited: 6,
  /** Server or network failure after retries, or a response that breaks the spec. */
  network: 7,
  /** Local file-system failure or conflict. */
  fileSystem: 8,
  /** `install --frozen`: the served files differ from `svc-dl.lock` (`lock_mismatch`). */
  lockMismatch: 9,
  /** `--max-duration` reached before every item finished (`deadline_reached`). */
  deadline: 10,
  /** Interrupted by SIGINT. */
  sigint: 130,
  /** Interrupted by SIGTERM. */
  sigterm: 143,
} as const;

/** One of the values of {@link ExitCode}. */
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** What each exit code means, for `svc-dl help exit-codes` (cli-contract "Exit codes"). */
export const EXIT_CODE_MEANINGS: ReadonlyArray<readonly [ExitCodeValue, string]> = [
  [ExitCode.ok, 'success, including "already up to date"'],
  [ExitCode.failure, "unexpected failure; a multi-item run with some items failed"],
  [ExitCode.usage, "usage or configuration error"],
  [ExitCode.auth, "authentication failed, or no API key configured"],
  [ExitCode.forbidden, "not permitted"],
  [ExitCode.notFound, "not found"],
  [ExitCode.rateLimited, "still rate limited after the wait budget (--max-wait)"],
  [ExitCode.network, "server or network failure after retries, or a response that breaks the spec"],
  [
    ExitCode.fileSystem,
    "local file-system failure or conflict (space, permission, file exists, locked)",
  ],
  [ExitCode.lockMismatch, "install --frozen: the served files differ from svc-dl.lock"],
  [ExitCode.deadline, "--max-duration reached before every item finished (partial data kept)"],
  [ExitCode.sigint, "interrupted by SIGINT (partial data kept), or cancelled at a prompt"],
  [ExitCode.sigterm, "interrupted by SIGTERM (code interrupted; partial data kept)"],
];
