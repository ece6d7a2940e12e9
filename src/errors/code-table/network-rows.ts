import { archiveHint } from "../archive-hints.js";
import { type CodeEntry, config, lasting, server } from "./entry.js";
import { proxyWays, reportLink, SUPPORT } from "./hints.js";

/**
 * The rows of the way to the service: the network (connection, TLS, DNS, timeout, proxy) and
 * answers that break the spec (cli-contract "Exit codes": mostly exit 7, a server or network
 * failure).
 */
export const NETWORK_ROWS = {
  network_error: server((_c, d) =>
    d.toStdout
      ? "Run the command again, or download with -o DIR to resume."
      : d.partialKept
        ? "Run the same command again to resume from the bytes already saved."
        : "Check the network and the base URL; svc-dl retried where it could.",
  ),
  // `stalled`: the download host went silent in earlier items; `gaveUp`: every attempt went silent
  timeout: server((_c, d) =>
    d.stalled
      ? "The download host stopped answering; run the same command again later to fetch the rest (finished files are kept)."
      : d.gaveUp
        ? "Check the network; run the same command again later to resume."
        : "The service stopped answering; run the same command again later.",
  ),
  // `proxy`: the (redacted) proxy the name was asked through; `proxySource`: where the proxy
  // whose own name does not resolve is set; `source`: where the base URL is set
  dns_error: lasting((c, d) =>
    typeof d.proxySource === "string"
      ? `Check the proxy's host name in ${d.proxySource} (${proxyWays(c)}${c.exists("config set") ? " or `svc-dl config set proxy URL`" : ""}).`
      : typeof d.proxy === "string"
        ? `Check the host name and the proxy ${d.proxy} (${proxyWays(c)}).`
        : typeof d.source === "string"
          ? `Check the host name of the base URL (from ${d.source}); if this network reaches the internet only through a proxy, set it with ${proxyWays(c)}${c.exists("config set") ? " or `svc-dl config set proxy URL`" : ""}.`
          : `Check the host name in the base URL (${c.has("--base-url") ? "--base-url, " : ""}SVC_BASE_URL or \`svc-dl config get base-url\`), and the proxy if one is set (${proxyWays(c)}).`,
  ),
  tls_error: lasting((c) =>
    c.has("--ca-file")
      ? `If the host uses a private certificate authority, pass its PEM file with --ca-file (or SVC_CA_FILE${c.exists("config set") ? ", or `svc-dl config set ca-file PATH`" : ""}), or set NODE_EXTRA_CA_CERTS.`
      : "If the host uses a private certificate authority, set SVC_CA_FILE or NODE_EXTRA_CA_CERTS to its PEM file.",
  ),
  // `baseUrl` (and its `source`): the service's own origin; `host`: a link's host (the CDN)
  not_tls: lasting((_c, d) =>
    typeof d.baseUrl === "string"
      ? `Check the scheme and port of the base URL ${d.baseUrl}${d.source ? ` (from ${d.source})` : ""}: use the service's https port, or http:// for a service on this machine.`
      : typeof d.host === "string"
        ? `The link to ${d.host} names https on a port that does not speak TLS; ${SUPPORT}.`
        : "Check the URL's scheme and port: the server does not speak TLS there (http:// only for a loopback service).",
  ),
  proxy_error: lasting(
    (c) =>
      `Check the host name in the base URL and the proxy (${proxyWays(c)}); a proxy that wants a login takes it in its URL (http://user:password@host:port).`,
  ),
  invalid_proxy: config(
    (c) => `Give the proxy as http://host:port or https://host:port (${proxyWays(c)}).`,
  ),
  invalid_ca_file: config(
    (c) =>
      `Point ${c.has("--ca-file") ? "--ca-file, " : ""}SVC_CA_FILE${c.exists("config set") ? " or `svc-dl config set ca-file PATH`" : ""} at a readable PEM file (-----BEGIN CERTIFICATE-----).`,
  ),
  bad_framing: server(
    `The server or a proxy on the way broke HTTP/1.1 framing, a bug on its side rather than a network fault; ${SUPPORT}.`,
  ),

  // --- responses that break the spec ---
  unexpected_response: server(
    `The service answered something the spec does not allow; retry later, and ${SUPPORT}.`,
  ),
  broken_pagination: server(`The service's paging is broken; retry later, and ${SUPPORT}.`),
  bad_redirect: server(`The service sent a redirect svc-dl cannot follow; ${SUPPORT}.`),
  too_many_redirects: server("The service or its CDN is redirecting in a loop; try again later."),
  insecure_redirect: lasting("The download would travel unencrypted; report this to the service."),
  insecure_url: lasting((_c, d) => reportLink("a clear-text http:// address", d)),
  unsupported_scheme: lasting((_c, d) => reportLink("a link that is not https", d)),
  corrupt_download: server(`Run the same command again; if it keeps failing, ${SUPPORT}.`),
  // `problem`: the kind of refusal the extractor found (src/errors/archive-hints.ts)
  unsafe_archive: lasting(
    (_c, d) => archiveHint(d.problem) ?? "Nothing was extracted; the ZIP is kept as downloaded.",
  ),
  legacy_denied: {
    // the legacy endpoint's denials have no documented shape: the status says what it was
    exitCode: "status",
    retryable: false,
    scope: "item",
    hint: "Check that the license key belongs to this pack (or to lifetime access) and that its order is paid; quote the request id to support.",
  },
} as const satisfies Record<string, CodeEntry>;
