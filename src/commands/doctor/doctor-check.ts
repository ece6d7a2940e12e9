/** One check of `svc-dl doctor` (cli-contract "Operating unattended"). */
export interface DoctorCheck {
  name: string;
  status: "ok" | "warn" | "fail";
  finding: string;
  /** The next step when not ok; null when ok. */
  hint: string | null;
}

/** The finding and hint of a failed step, from an SvcError-like error; never a key (errors are redacted). */
export function failure(name: string, err: unknown): DoctorCheck {
  const e = err as { code?: string; message?: string; hint?: string; requestId?: string | null };
  const id = e.requestId ? ` (request id ${e.requestId})` : "";
  return {
    name,
    status: "fail",
    finding: `${e.message ?? String(err)}${e.code ? ` [${e.code}]` : ""}${id}`,
    hint: e.hint ?? "Run again with --verbose for details.",
  };
}
