import type { Duplex } from "node:stream";
import {
  checkServerIdentity,
  type PeerCertificate,
  type SecureContext,
  type TLSSocket,
} from "node:tls";
import { type HintContext, renderHint } from "../../errors/codes.js";
import { classifyNetworkError } from "../../http/classify.js";
import type { NetworkSettings } from "../../http/dispatcher.js";
import { probeConnect } from "../../http/probe-connect.js";
import { tlsTrust } from "../../http/tls-trust.js";
import { counted } from "../../io/plural.js";
import { type DoctorCheck, failure } from "./doctor-check.js";
import { endpointOf, type ProbeBudget, type ProbeTarget } from "./probe.js";
import { openTunnel, TunnelRefused } from "./tunnel.js";

/** What {@link tlsCheck} probes. */
export interface TlsProbe {
  /** The API origin and where its address was set. */
  target: ProbeTarget;
  /** The proxy in use for it (the handshake then runs through a `CONNECT` tunnel), if any. */
  proxy: URL | undefined;
  /** The run's network settings: the CA file and `NODE_EXTRA_CA_CERTS` come from there. */
  settings: NetworkSettings;
  /** Where the CA file was set (`--ca-file`, `SVC_CA_FILE`, `config ca-file`), if one is. */
  caSource: string | undefined;
  /** Now, in ms since the epoch (the certificate's days left). */
  nowMs: number;
  /** Doctor's probe budget: the tunnel and the handshake get what is left of it. */
  budget: ProbeBudget;
  /** Doctor's command context, for the error table's hints. */
  hints: HintContext;
}

/** A certificate that expires within this many days warns: the nightly job will break soon. */
const EXPIRY_WARN_DAYS = 14;
const DAY_MS = 86_400_000;

/**
 * TLS to the API origin (cli-contract "Operating unattended", doctor; "Networks"): one handshake
 * with the trust the run uses (Node's CA list, plus `NODE_EXTRA_CA_CERTS` and the CA file, as
 * `tlsTrust` builds it, the same SecureContext), through the proxy's tunnel when one is in use. Reports the protocol,
 * the certificate's subject, issuer and expiry, and the CA source; fails `tls_error` for an
 * untrusted, expired or misnamed certificate, `not_tls` for a port that answers in plain text,
 * `proxy_error` for a refused tunnel, each with the hint that fixes it. Nothing is sent on the
 * connection: it is closed once the certificate is read.
 */
export async function tlsCheck(p: TlsProbe): Promise<DoctorCheck> {
  if (p.target.url.protocol !== "https:") {
    const finding = "not used: plain http:// (allowed for a service on this machine only)";
    return { name: "tls", status: "ok", finding, hint: null };
  }
  let secureContext: SecureContext | undefined;
  try {
    secureContext = tlsTrust(p.settings).secureContext();
  } catch (err) {
    return failure("tls", err, p.hints);
  }
  let socket: TLSSocket;
  try {
    socket = await handshake(p.target.url, p.proxy, secureContext, p.budget);
  } catch (err) {
    return handshakeFailure(err, p);
  }
  try {
    return verdict(socket, p);
  } finally {
    socket.destroy();
  }
}

/** The certificate authorities the handshake trusts, as the TLS line names them. */
function caLabel(p: TlsProbe): string {
  const env = p.settings.env;
  const options = env.NODE_OPTIONS ?? "";
  const base =
    p.settings.caFile === undefined && /--use-(?:system|openssl)-ca\b/.test(options)
      ? "the system store"
      : "Node's bundled CA list";
  const extra = env.NODE_EXTRA_CA_CERTS?.trim();
  const file = p.settings.caFile?.trim();
  return [
    base,
    ...(extra ? [`NODE_EXTRA_CA_CERTS ${extra}`] : []),
    ...(file ? [`${file} (from ${p.caSource ?? "the CA file setting"})`] : []),
  ].join(" + ");
}

/**
 * One TLS handshake with `url`'s host, directly or through a tunnel of `proxy`. The
 * certificate is not rejected here ({@link verdict} judges it, so an untrusted one can still be
 * described); the socket carries no request and is destroyed by the caller.
 */
async function handshake(
  url: URL,
  proxy: URL | undefined,
  secureContext: SecureContext | undefined,
  budget: ProbeBudget,
): Promise<TLSSocket> {
  const { host, port } = endpointOf(url);
  const tunnel: Duplex | undefined = proxy
    ? await openTunnel(proxy, url, secureContext, budget.remainingMs())
    : undefined;
  try {
    // with a tunnel, `host` only names whom the certificate must be issued for
    return (await probeConnect({
      host,
      port,
      tls: true,
      timeoutMs: budget.remainingMs(),
      ...(tunnel ? { tunnel } : {}),
      ...(secureContext ? { secureContext } : {}),
    })) as TLSSocket;
  } catch (err) {
    tunnel?.destroy();
    throw err;
  }
}

/** `CN=…` (or `O=…`) of a certificate's subject or issuer. */
function nameOf(part: PeerCertificate["subject"] | undefined): string {
  const cn = part?.CN;
  if (cn !== undefined) return `CN=${String(cn)}`;
  return part?.O !== undefined ? `O=${String(part.O)}` : "(no name)";
}

/** Judges the certificate of a finished handshake: trusted, names the host, days left. */
function verdict(socket: TLSSocket, p: TlsProbe): DoctorCheck {
  const { url } = p.target;
  const cert = socket.getPeerCertificate();
  const expires = Date.parse(cert.valid_to);
  const date = Number.isNaN(expires) ? cert.valid_to : new Date(expires).toISOString().slice(0, 10);
  const what = `${socket.getProtocol() ?? "TLS"}, certificate ${nameOf(cert.subject)} issued by ${nameOf(cert.issuer)}`;
  const fail = (finding: string, hint: string): DoctorCheck => ({
    name: "tls",
    status: "fail",
    finding,
    hint,
  });
  // typed Error, but Node sets the failure's code (a string), or nothing when trusted
  const refusal: unknown = socket.authorized ? undefined : socket.authorizationError;
  const code = typeof refusal === "string" ? refusal : (refusal as Error | undefined)?.message;
  if (code !== undefined && code !== "ERR_TLS_CERT_ALTNAME_INVALID") {
    if (code === "CERT_HAS_EXPIRED" || code === "CERT_NOT_YET_VALID") {
      return fail(
        `${what}: ${code === "CERT_HAS_EXPIRED" ? "expired" : "not valid yet"} (valid until ${date}) [tls_error]`,
        "Check this machine's date and time; if they are right, the service's certificate is out of date: tell the service's support.",
      );
    }
    return fail(
      `${what}: not trusted by ${caLabel(p)} (${code}) [tls_error]`,
      renderHint("tls_error", p.hints) ?? "",
    );
  }
  const { host } = endpointOf(url);
  const misnamed = checkServerIdentity(host, cert);
  if (misnamed || code !== undefined) {
    return fail(
      `${what}: it is not issued for ${host} (${misnamed?.message ?? code}) [tls_error]`,
      `Check the host of the base URL (from ${p.target.source}): use the name the service's certificate is issued for.`,
    );
  }
  const days = Math.floor((expires - p.nowMs) / DAY_MS);
  const finding = `${what}, expires ${date} (${counted(days, "day")}); CA: ${caLabel(p)}${p.proxy ? "; through the proxy's tunnel" : ""}`;
  return days >= EXPIRY_WARN_DAYS
    ? { name: "tls", status: "ok", finding, hint: null }
    : {
        name: "tls",
        status: "warn",
        finding,
        hint: `The service's certificate expires in ${counted(days, "day")}; downloads fail with tls_error after ${date} unless it is renewed: tell the service's support.`,
      };
}

/** The failed check of a handshake (or tunnel) that did not finish. */
function handshakeFailure(err: unknown, p: TlsProbe): DoctorCheck {
  const { url, source } = p.target;
  if (err instanceof TunnelRefused) {
    return { name: "tls", status: "fail", finding: `${err.message} [proxy_error]`, hint: err.hint };
  }
  const message = err instanceof Error ? err.message : String(err);
  const code = String((err as { code?: unknown }).code ?? "");
  const kind = classifyNetworkError(err);
  // the handshake's only time limit is what was left of the budget, so its timeout is the budget
  // running out, even when the timer fired before performance.now() reached the end (a timer
  // counts from the event loop's cached time, stale after synchronous work such as loading CAs)
  if (kind === "timeout") {
    const through = p.proxy ? " (through the proxy's tunnel)" : "";
    return {
      name: "tls",
      status: "fail",
      finding: `TLS handshake with ${url.host}${through}: ${p.budget.ranOut()} [timeout]`,
      hint: `Check that the base URL's port (from ${source}) serves https, and that nothing on the way holds the connection.`,
    };
  }
  if (kind === "not_tls") {
    return {
      name: "tls",
      status: "fail",
      finding: `${url.host} does not speak TLS: the port answered in plain text (${code}) [not_tls]`,
      hint: renderHint("not_tls", p.hints, { baseUrl: url.origin, source }),
    };
  }
  return {
    name: "tls",
    status: "fail",
    finding: `TLS handshake with ${url.host} failed: ${code && !message.includes(code) ? `${code} ` : ""}${message} [tls_error]`,
    hint:
      kind === "tls"
        ? renderHint("tls_error", p.hints)
        : "Something on the way ended the handshake (a firewall, or a proxy that inspects TLS). If it re-signs traffic with its own certificate authority, trust that CA with --ca-file PATH.",
  };
}
