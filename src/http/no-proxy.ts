import { BlockList, isIP } from "node:net";

/** Default port of each scheme svc-dl requests. */
const DEFAULT_PORTS: Readonly<Record<string, number>> = { "http:": 80, "https:": 443 };

/** One `NO_PROXY` entry: true when a request to `host` (lower-case, no brackets) on `port` goes direct. */
type Entry = (host: string, port: number) => boolean;

/**
 * Reads a `NO_PROXY` value as curl does (cli-contract "Networks"): entries separated by commas
 * or white space; `*` alone sends everything direct; a host name matches itself and its
 * sub-domains (a leading `.` or `*.` is ignored); an IP address matches that address, written
 * bare or in brackets (`::1`, `[::1]`, `0:0:0:0:0:0:0:1` alike); CIDR blocks (`127.0.0.0/8`,
 * `fd00::/8`) match every address inside; a host or bracketed address may end in `:PORT` to
 * match that port only. Entries that are none of these are ignored, as curl ignores them.
 * Returns a predicate: true when a request to `url` must not use a proxy.
 */
export function noProxyMatcher(value: string): (url: URL) => boolean {
  const entries: Entry[] = [];
  for (const raw of value.split(/[,\s]+/)) {
    const entry = raw.trim().toLowerCase();
    if (entry === "") continue;
    if (entry === "*") return () => true;
    const parsed = parseEntry(entry);
    if (parsed) entries.push(parsed);
  }
  return (url) => {
    const host = unbracket(url.hostname.toLowerCase()).replace(/\.$/, "");
    const port = Number(url.port) || DEFAULT_PORTS[url.protocol] || 0;
    return entries.some((matches) => matches(host, port));
  };
}

function parseEntry(entry: string): Entry | undefined {
  const cidr = /^(.+)\/(\d{1,3})$/.exec(entry);
  if (cidr?.[1] !== undefined && cidr[2] !== undefined) {
    return addressEntry(unbracket(cidr[1]), Number(cidr[2]), 0);
  }
  if (isIP(unbracket(entry)) !== 0) return addressEntry(unbracket(entry), undefined, 0);
  const withPort = /^(.+):(\d{1,5})$/.exec(entry);
  const name = withPort?.[1] ?? entry;
  const port = withPort?.[2] !== undefined ? Number(withPort[2]) : 0;
  if (isIP(unbracket(name)) !== 0) return addressEntry(unbracket(name), undefined, port);
  const domain = name.replace(/^\*?\./, "").replace(/\.$/, "");
  if (domain === "" || domain.includes("/") || domain.includes("*")) return undefined;
  return (host, p) =>
    (port === 0 || port === p) && (host === domain || host.endsWith(`.${domain}`));
}

/** An address or CIDR block (`prefix` bits) entry, for `port` only unless 0; undefined when invalid. */
function addressEntry(
  address: string,
  prefix: number | undefined,
  port: number,
): Entry | undefined {
  const family = isIP(address);
  if (family === 0) return undefined;
  const type = family === 4 ? "ipv4" : "ipv6";
  const bits = prefix ?? (family === 4 ? 32 : 128);
  if (bits > (family === 4 ? 32 : 128)) return undefined;
  const list = new BlockList();
  list.addSubnet(address, bits, type);
  return (host, p) => {
    if (port !== 0 && port !== p) return false;
    const hostFamily = isIP(host);
    return hostFamily !== 0 && list.check(host, hostFamily === 4 ? "ipv4" : "ipv6");
  };
}

function unbracket(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}
