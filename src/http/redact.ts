/** Shortest fragment of a secret that is scrubbed wherever it appears. */
export const SECRET_FRAGMENT = 16;

/** Query parameter names whose values are credentials on any host. */
const CREDENTIAL_PARAM =
  /^(?:key|api[-_]?key|apikey|token|access[-_]?token|auth|authorization|signature|sig|secret|password|passwd|pwd|license[-_]?key|licen[cs]e|credential|x-amz-signature|x-amz-credential|x-amz-security-token|x-goog-signature|x-goog-credential)$/i;

/**
 * The one redactor of svc-dl (cli-contract "Configuration and credentials": no full or
 * partial key in any output). It knows the secrets of the run (the API key, a license key) and
 * scrubs from any text: each secret, the secret without its `svc_live_` / `SVC_` prefix, and
 * any run of at least 16 characters copied from one (`[redacted]`). URLs lose their user info,
 * and credential-like query values (`key`, `token`, `signature`, `sig`, …) on every host; on
 * hosts other than the service origin every query value and the fragment are dropped.
 */
export class Redactor {
  readonly #serviceOrigin: string;
  /** Secret → the placeholder that replaces it. */
  readonly #secrets = new Map<string, string>();

  /** @param serviceOrigin e.g. `https://assets.example.com` */
  constructor(serviceOrigin: string, secrets: readonly string[] = []) {
    this.#serviceOrigin = serviceOrigin;
    for (const s of secrets) this.addSecret(s);
  }

  /**
   * Adds a secret (with and without its `svc_live_` or `SVC_` prefix). Short strings are
   * ignored. Its text is replaced by `[API key]`, `[license key]` (by its prefix) or `label`.
   */
  addSecret(secret: string, label?: string): void {
    const value = secret.trim();
    if (value.length < 8) return;
    const placeholder =
      label ??
      (value.startsWith("svc_live_")
        ? "[API key]"
        : /^SVC_/i.test(value)
          ? "[license key]"
          : "[redacted]");
    this.#secrets.set(value, placeholder);
    const bare = value.replace(/^svc_live_/, "").replace(/^SVC_/i, "");
    if (bare.length >= 8 && !this.#secrets.has(bare)) this.#secrets.set(bare, placeholder);
  }

  /** `text` with every secret and every 16-character fragment of one replaced by its placeholder. */
  text(text: string): string {
    if (this.#secrets.size === 0 || text.length === 0) return text;
    const labels = [...new Set(this.#secrets.values())];
    const mask = new Uint8Array(text.length);
    let hit = false;
    for (const [secret, placeholder] of this.#secrets) {
      const mark = labels.indexOf(placeholder) + 1;
      const size = Math.min(SECRET_FRAGMENT, secret.length);
      for (let i = 0; i + size <= secret.length; i++) {
        const fragment = secret.slice(i, i + size);
        for (let at = text.indexOf(fragment); at !== -1; at = text.indexOf(fragment, at + 1)) {
          mask.fill(mark, at, at + size);
          hit = true;
        }
      }
    }
    if (!hit) return text;
    let out = "";
    for (let i = 0; i < text.length; i++) {
      const mark = mask[i] ?? 0;
      if (mark === 0) out += text[i];
      else if (i === 0 || mask[i - 1] === 0) out += labels[mark - 1] ?? "[redacted]";
    }
    return out;
  }

  /** A URL fit for logs and messages (see the class). */
  url(url: URL | string): string {
    let copy: URL;
    try {
      copy = new URL(typeof url === "string" ? url : url.href);
    } catch {
      return this.text(String(url));
    }
    copy.username = "";
    copy.password = "";
    const foreign = copy.origin !== this.#serviceOrigin;
    if (foreign) copy.hash = "";
    if (copy.search === "") return this.text(copy.href);
    const pairs = [...copy.searchParams.entries()];
    copy.search = "";
    const query = pairs
      .map(([name, value]) => {
        const hidden = foreign || CREDENTIAL_PARAM.test(name);
        return `${encodeURIComponent(name)}=${hidden ? "…" : encodeURIComponent(value)}`;
      })
      .join("&");
    return this.text(`${copy.href}?${query}`);
  }
}

/**
 * A URL fit for logs without known secrets: see {@link Redactor.url}.
 *
 * @param url the request URL
 * @param serviceOrigin the service's origin, e.g. `https://assets.example.com`
 * @returns the URL as text, e.g. `https://cdn.example.net/f.zip?expires=…&sig=…`
 */
export function redactUrl(url: URL, serviceOrigin: string): string {
  return new Redactor(serviceOrigin).url(url);
}

/**
 * A URL-like setting (a proxy address, a base URL) fit to print, the one rule for every URL
 * svc-dl prints from configuration (doctor, `config list`, `config get`): the password of its
 * user info shown as `***` (`http://user:***@proxy:3128`), and a user name given without a
 * password, which is how tokens are passed (`http://TOKEN@proxy`), shown as `***` too
 * (`http://***@proxy`); everything else as given. Works on text that is not a valid URL too (a
 * hand-edited config file), so a credential is never printed either way.
 */
export function maskUrlCredentials(value: string): string {
  return value.replace(
    /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)@/i,
    (_all, scheme: string, userInfo: string) => {
      const colon = userInfo.indexOf(":");
      if (colon === -1) return userInfo === "" ? `${scheme}@` : `${scheme}***@`;
      return `${scheme}${userInfo.slice(0, colon)}:***@`;
    },
  );
}

/**
 * The credentials of a proxy URL become secrets of `redactor` (cli-contract "Networks"): its
 * password, or its user name when it comes without a password (a token).
 */
export function learnProxyPassword(redactor: Redactor, proxy: string): void {
  if (proxy === "") return;
  try {
    const url = new URL(proxy);
    if (url.password) redactor.addSecret(decodeURIComponent(url.password), "[proxy password]");
    else if (url.username) {
      redactor.addSecret(decodeURIComponent(url.username), "[proxy credential]");
    }
  } catch {
    // an invalid proxy URL was refused when the dispatcher was built
  }
}

/** A license key (any `key`/`token`/`secret` member) of a JSON request body becomes a secret of `redactor`. */
export function learnBodySecrets(redactor: Redactor, body: string): void {
  try {
    const json = JSON.parse(body) as Record<string, unknown>;
    for (const [name, value] of Object.entries(json)) {
      if (typeof value === "string" && /key|token|secret/i.test(name)) redactor.addSecret(value);
    }
  } catch {
    // not JSON: nothing to learn
  }
}
