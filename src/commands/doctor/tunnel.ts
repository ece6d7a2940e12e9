import type { Duplex } from "node:stream";
import type { SecureContext } from "node:tls";
import { Client } from "undici";
import { IDLE_TIMEOUT_MS } from "../../http/dispatcher.js";
import { maskUrlCredentials } from "../../http/redact.js";
import { endpointOf } from "./probe.js";

/** A proxy that would not open the `CONNECT` tunnel; `hint` is the next step. */
export class TunnelRefused extends Error {
  override name = "TunnelRefused";
  readonly hint: string;
  constructor(message: string, hint: string) {
    super(message);
    this.hint = hint;
  }
}

/**
 * Opens a `CONNECT` tunnel through `proxy` to `url`'s host and port with undici (as the run's
 * ProxyAgent does: a login in the proxy's URL goes as `Proxy-Authorization: Basic`, an https
 * proxy is verified with `secureContext`, the run's, when given; connect and answer each within
 * `timeoutMs`, default {@link IDLE_TIMEOUT_MS}), and returns the raw tunnel socket (the caller owns it). Throws
 * {@link TunnelRefused} when the proxy answers anything but 200 or closes the connection.
 */
export async function openTunnel(
  proxy: URL,
  url: URL,
  secureContext: SecureContext | undefined,
  timeoutMs = IDLE_TIMEOUT_MS,
): Promise<Duplex> {
  const { port } = endpointOf(url);
  const authority = `${url.hostname}:${port}`;
  const client = new Client(proxy.origin, {
    connect: { timeout: timeoutMs, ...(secureContext ? { secureContext } : {}) },
    headersTimeout: timeoutMs,
  });
  const headers: Record<string, string> = { host: authority };
  if (proxy.username !== "" || proxy.password !== "") {
    const login = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
    headers["proxy-authorization"] = `Basic ${Buffer.from(login).toString("base64")}`;
  }
  const shown = maskUrlCredentials(proxy.href.replace(/\/$/, ""));
  try {
    const { socket, statusCode } = await client.connect({ path: authority, headers });
    if (statusCode === 200) return socket;
    socket.destroy();
    throw refusal(shown, authority, statusCode);
  } catch (err) {
    if (err instanceof TunnelRefused) throw err;
    const code = (err as { code?: unknown }).code;
    if (code === "UND_ERR_SOCKET" || code === "ECONNRESET") throw refusal(shown, authority);
    throw err;
  } finally {
    void client.destroy().catch(() => undefined);
  }
}

/** What a refused tunnel means, by the proxy's answer (undefined: it closed the connection). */
function refusal(proxy: string, authority: string, status?: number): TunnelRefused {
  const answer = status === undefined ? "closed the connection" : `answered HTTP ${status}`;
  if (status === 407) {
    return new TunnelRefused(
      `the proxy ${proxy} ${answer} to CONNECT ${authority}: it wants a login`,
      "Give the proxy's login in its URL (http://user:password@host:port) with --proxy, HTTPS_PROXY or `svc-dl config set proxy URL`.",
    );
  }
  const why =
    status === undefined || status >= 500 ? "it could not resolve or reach the host" : "it refused";
  return new TunnelRefused(
    `the proxy ${proxy} ${answer} to CONNECT ${authority}: ${why}`,
    "Check the base URL's host, and that this proxy may reach it (or list the host in NO_PROXY if it must be reached directly).",
  );
}
