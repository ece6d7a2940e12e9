import { type HintContext, NO_COMMAND } from "../../errors/codes.js";
import { hintFor } from "../../errors/format.js";
import { SvcError } from "../../errors/svc-error.js";

/** One check of `svc-dl doctor` (cli-contract "Operating unattended"). */
export interface DoctorCheck {
  name: string;
  status: "ok" | "warn" | "fail";
  finding: string;
  /** The next step when not ok; null when ok. */
  hint: string | null;
}

/**
 * The finding and hint of a failed step, from an SvcError-like error; never a key (errors are
 * redacted). The hint is the error table's (src/errors/codes.ts), rendered for `hints` (doctor's
 * command context) from the error's facts, as every other command prints it.
 */
export function failure(name: string, err: unknown, hints: HintContext = NO_COMMAND): DoctorCheck {
  const e = err as { code?: string; message?: string; hint?: string; requestId?: string | null };
  const hint = err instanceof SvcError ? hintFor(err, hints) : e.hint;
  const id = e.requestId ? ` (request id ${e.requestId})` : "";
  return {
    name,
    status: "fail",
    finding: `${e.message ?? String(err)}${e.code ? ` [${e.code}]` : ""}${id}`,
    hint: hint ?? "Run again with --verbose for details.",
  };
}
