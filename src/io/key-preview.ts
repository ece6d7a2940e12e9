/**
 * The one way svc-dl shows an API key (cli-contract "Configuration and credentials"): the
 * spec's `preview` (or, for a key the service has not described, at most its first 12
 * characters and never more than a third of it), always ending in `…` so it never reads as a
 * whole key. Never pass a license key here.
 */
export function keyPreview(opts: { preview: string } | { value: string }): string {
  const shown =
    "preview" in opts
      ? opts.preview.replace(/…+$/u, "")
      : opts.value.slice(0, Math.min(12, Math.floor(opts.value.length / 3)));
  return `${shown}…`;
}

/**
 * The preview of a stored key: the service's `preview` recorded at login when it is a prefix of
 * that key no longer than a third of it (the file is read back as untrusted), else the
 * short prefix of {@link keyPreview}.
 */
export function storedKeyPreview(value: string, preview: string | undefined): string {
  const shown = preview?.replace(/…+$/u, "");
  const fits =
    shown !== undefined &&
    shown !== "" &&
    shown.length * 3 <= value.length &&
    value.startsWith(shown);
  return fits ? keyPreview({ preview: shown }) : keyPreview({ value });
}

/**
 * Where the key in use comes from, for humans: `SVC_API_KEY (environment)`,
 * `SVC_API_KEY_FILE (/path)`, `systemd credential (/path)`, `OS keyring` or `config file`.
 */
export function keySourceLabel(key: {
  source: "env" | "file" | "systemd-credential" | "keyring" | "config";
  path?: string | undefined;
}): string {
  switch (key.source) {
    case "env":
      return "SVC_API_KEY (environment)";
    case "file":
      return `SVC_API_KEY_FILE (${key.path ?? "?"})`;
    case "systemd-credential":
      return `systemd credential (${key.path ?? "?"})`;
    case "keyring":
      return "OS keyring";
    default:
      return "config file";
  }
}
