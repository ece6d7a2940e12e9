/**
 * A URL fit for logs: for hosts other than the service origin, every query value is replaced
 * by `…` (signed CDN URLs carry tokens); service-origin URLs are shown whole (they never carry
 * credentials, which travel only in headers).
 */
export function redactUrl(url: URL, serviceOrigin: string): string {
  if (url.origin === serviceOrigin || url.search === "") return url.href;
  const copy = new URL(url.href);
  const names = [...copy.searchParams.keys()];
  copy.search = "";
  const query = names.map((name) => `${encodeURIComponent(name)}=…`).join("&");
  return `${copy.href}?${query}`;
}
