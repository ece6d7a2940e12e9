/**
 * A URL fit for logs (cli-contract "--verbose"): user name and password are always dropped;
 * for hosts other than the service origin every query value is replaced by `…` (signed CDN URLs
 * carry tokens in their query) and the fragment is dropped; service-origin URLs keep their
 * query (it never carries credentials, which travel only in headers).
 *
 * @param url the request URL
 * @param serviceOrigin the service's origin, e.g. `https://assets.example.com`
 * @returns the URL as text, e.g. `https://cdn.example.net/f.zip?expires=…&sig=…`
 */
export function redactUrl(url: URL, serviceOrigin: string): string {
  const copy = new URL(url.href);
  copy.username = "";
  copy.password = "";
  if (copy.origin === serviceOrigin) return copy.href;
  copy.hash = "";
  if (copy.search === "") return copy.href;
  const names = [...copy.searchParams.keys()];
  copy.search = "";
  const query = names.map((name) => `${encodeURIComponent(name)}=…`).join("&");
  return `${copy.href}?${query}`;
}
