import { NetworkError } from "../errors/network-error.js";
import { PROXY_TUNNEL_CLOSED } from "./proxy-tunnel.js";

/** What a transfer failure was, as the retry policy sees it (cli-contract "Networks"). */
export type NetworkFailureKind =
  | "connection"
  | "timeout"
  | "framing"
  | "tls"
  | "not_tls"
  | "dns"
  | "proxy";

/** Error codes of certificate failures (Node's TLS layer). */
const TLS_CODES = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "CERT_REVOKED",
  "CERT_UNTRUSTED",
  "CERT_REJECTED",
  "CERT_SIGNATURE_FAILURE",
  "INVALID_CA",
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "UND_ERR_PRX_TLS",
]);

/**
 * OpenSSL codes of a TLS handshake answered by something that is not TLS (typically a
 * plain-HTTP server's `400 Bad Request` read as a TLS record): an `https://` URL aimed at an
 * `http` port. Not a certificate problem.
 */
const NOT_TLS_CODES = new Set([
  "ERR_SSL_WRONG_VERSION_NUMBER",
  "ERR_SSL_PACKET_LENGTH_TOO_LONG",
  "ERR_SSL_HTTP_REQUEST",
  "ERR_SSL_UNKNOWN_PROTOCOL",
  "ERR_SSL_RECORD_LAYER_FAILURE",
]);

/** Error codes of host names that do not resolve. */
const DNS_CODES = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_NONAME", "EAI_FAIL"]);

/** Error codes of silence past a timeout. */
const TIMEOUT_CODES = new Set([
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "ETIMEDOUT",
]);

/** The first `code` along an error's `cause` chain. */
function errorCodes(err: unknown): string[] {
  const codes: string[] = [];
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") codes.push(code);
    e = (e as { cause?: unknown }).cause;
  }
  return codes;
}

/**
 * The status a proxy answered a CONNECT with, when that is what failed: undici's ProxyAgent
 * reports any answer but 200 as `Proxy response (NNN) !== 200 when HTTP Tunneling`.
 */
export function proxyConnectStatus(err: unknown): number | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    const message = (e as { message?: unknown }).message;
    const m =
      typeof message === "string" ? /Proxy response \((\d{3})\) !== 200/.exec(message) : null;
    if (m) return Number(m[1]);
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Classifies an error thrown by undici (see {@link NetworkFailureKind}). */
export function classifyNetworkError(err: unknown): NetworkFailureKind {
  const codes = errorCodes(err);
  if (proxyConnectStatus(err) !== undefined || codes.includes(PROXY_TUNNEL_CLOSED)) return "proxy";
  if (codes.some((c) => NOT_TLS_CODES.has(c))) return "not_tls";
  if (codes.some((c) => TLS_CODES.has(c) || c.startsWith("ERR_SSL_") || c.startsWith("CERT_"))) {
    return "tls";
  }
  if (codes.some((c) => DNS_CODES.has(c))) return "dns";
  if (codes.some((c) => TIMEOUT_CODES.has(c))) return "timeout";
  if (
    codes.some((c) => c.startsWith("HPE_") || c === "UND_ERR_HEADERS_OVERFLOW") ||
    (err instanceof Error && err.name === "HTTPParserError") ||
    isUndiciBadResponse(err)
  ) {
    return "framing";
  }
  return "connection";
}

/**
 * undici's refusal of an answer it cannot place (`bad response`): an answer before any request,
 * or an interim `100 Continue` that src/http/interim-answers.ts did not remove (a malformed
 * one, or on a dispatcher given by the caller). A server fault, repeated on every try.
 */
function isUndiciBadResponse(err: unknown): boolean {
  return (
    err instanceof Error &&
    (err as { code?: unknown }).code === "UND_ERR_SOCKET" &&
    err.message === "bad response"
  );
}

/** Where a failed request went, for messages. */
export interface FailedRequest {
  url: URL;
  requestId: string;
  /** The proxy in use for this URL, already redacted (no credentials), if any. */
  proxy: string | undefined;
  /** `text` with secrets removed. */
  scrub: (text: string) => string;
  /** True once the response head had arrived (the body transfer failed). */
  duringBody?: boolean;
  /** The base URL and where it was set (`--base-url`, `SVC_BASE_URL`, …), for hints about it. */
  service?: { url: URL; source: string | undefined };
}

/**
 * Builds the NetworkError (exit 7) of an undici failure: `tls_error`, `dns_error` and
 * `proxy_error` (the proxy refused the tunnel: 407 login wanted, 403, or 502/503 when it cannot
 * resolve or reach the host, as curl reports a failed CONNECT) name the host and what to do and
 * are not retried; `timeout`, `bad_framing` (a response that breaks HTTP/1.1 framing: llhttp
 * refused it, and its message names the violation) and `network_error` are retried by policy
 * (`RetryBudget`: `bad_framing` once only).
 */
export function networkErrorFrom(err: unknown, req: FailedRequest): NetworkError {
  const kind = classifyNetworkError(err);
  const host = req.url.host;
  const detail = req.scrub(describe(err));
  const via = req.proxy ? ` (through the proxy ${req.proxy})` : "";
  const common = { requestId: req.requestId, cause: err };
  switch (kind) {
    case "tls":
      return new NetworkError(`certificate of ${host} not trusted${via}: ${detail}`, {
        ...common,
        code: "tls_error",
      });
    case "not_tls":
      return new NetworkError(
        `${host} does not speak TLS${via}: the https:// address points at a port that answered in plain text (${detail})`,
        { ...common, code: "not_tls", detail: notTlsFacts(req) },
      );
    case "dns":
      return new NetworkError(`host name ${req.url.hostname} does not resolve${via}: ${detail}`, {
        ...common,
        code: "dns_error",
        // through a proxy, the table's hint names it; else where the base URL is set
        detail: { proxy: req.proxy },
      });
    case "proxy": {
      const status = proxyConnectStatus(err);
      const why =
        status === 407
          ? "it wants a login"
          : status === undefined || status >= 500
            ? "it could not resolve or reach the host"
            : "it refused";
      const answer = status === undefined ? "closed the connection" : `answered HTTP ${status}`;
      return new NetworkError(
        `the proxy ${req.proxy ?? ""} ${answer} when asked for a tunnel to ${host}: ${why}`,
        { ...common, code: "proxy_error" },
      );
    }
    case "timeout":
      return new NetworkError(`${host} sent nothing for too long${via}: ${detail}`, {
        ...common,
        code: "timeout",
      });
    case "framing":
      return new NetworkError(`${host} sent a response that breaks HTTP/1.1 framing: ${detail}`, {
        ...common,
        code: "bad_framing",
      });
    default:
      return new NetworkError(
        `${req.duringBody ? "connection lost while reading from" : "could not reach"} ${host}${via}: ${detail}`,
        {
          ...common,
        },
      );
  }
}

/** The facts of a `not_tls` failure's hint: the base URL and its source, or the link's host. */
function notTlsFacts(req: FailedRequest): { baseUrl?: string; source?: string; host?: string } {
  const service = req.service;
  if (service && service.url.origin === req.url.origin) {
    return { baseUrl: service.url.origin, ...(service.source ? { source: service.source } : {}) };
  }
  return { host: req.url.host };
}

/** True for network errors that are retried (connection, timeout, framing). */
export function isRetryableNetworkError(err: NetworkError): boolean {
  return err.code === "network_error" || err.code === "timeout" || err.code === "bad_framing";
}

function describe(err: unknown): string {
  if (isUndiciBadResponse(err)) {
    return "an answer undici cannot place (an answer to no request, or a malformed 100 Continue)";
  }
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    const message = err.message.replace(/\s+/g, " ").slice(0, 200);
    return typeof code === "string" && !message.includes(code) ? `${code} ${message}` : message;
  }
  return String(err);
}
