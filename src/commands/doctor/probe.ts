/** The origin doctor probes (or a proxy on the way), and where its address was set (`--base-url`, `SVC_BASE_URL`, `--proxy`…). */
export interface ProbeTarget {
  url: URL;
  source: string;
}

/** The host and port a connection to `url` opens (brackets of an IPv6 address removed). */
export function endpointOf(url: URL): { host: string; port: number } {
  const port = Number(url.port) || (url.protocol === "https:" ? 443 : 80);
  return { host: url.hostname.replace(/^\[|\]$/g, ""), port };
}
