import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { SecureContext, TLSSocket } from "node:tls";
import { buildConnector } from "undici";
import { IDLE_TIMEOUT_MS } from "./dispatcher.js";

/**
 * Opens one connection the way undici's dispatchers do (its `buildConnector`: the same
 * connect timeout, TLS server name and keep-alive), for a check that must see the socket
 * itself (`svc-dl doctor`: the TCP time, the peer certificate). cli-contract "Operating
 * unattended" (doctor). Nothing is sent on it; the caller destroys it.
 *
 * - `tls` false: a TCP connection to `host`:`port`.
 * - `tls` true: a TLS handshake with `host`, over `tunnel` when given (a proxy's CONNECT
 *   tunnel); with `secureContext` (the run's: src/http/tls-trust.ts) when given, else Node's
 *   default trust. The certificate is not rejected here:
 *   the caller judges `authorized` / `authorizationError`.
 *
 * Rejects with the socket's error, or undici's `ConnectTimeoutError`
 * (`UND_ERR_CONNECT_TIMEOUT`) after `timeoutMs` (default {@link IDLE_TIMEOUT_MS}) ms.
 */
export function probeConnect(opts: {
  host: string;
  port: number;
  tls: boolean;
  tunnel?: Duplex;
  secureContext?: SecureContext;
  /** Connect (and handshake) time limit in ms; default {@link IDLE_TIMEOUT_MS}. */
  timeoutMs?: number;
}): Promise<Socket | TLSSocket> {
  const connector = buildConnector({
    timeout: opts.timeoutMs ?? IDLE_TIMEOUT_MS,
    maxCachedSessions: 0,
    ...(opts.tls
      ? {
          rejectUnauthorized: false,
          ...(opts.secureContext ? { secureContext: opts.secureContext } : {}),
        }
      : {}),
  });
  return new Promise((resolve, reject) => {
    connector(
      {
        hostname: opts.host,
        host: opts.host,
        protocol: opts.tls ? "https:" : "http:",
        port: String(opts.port),
        // a CONNECT tunnel is a Duplex; undici hands it to tls.connect({ socket })
        ...(opts.tunnel ? { httpSocket: opts.tunnel as Socket } : {}),
      },
      (err, socket) => (err !== null ? reject(err) : resolve(socket)),
    );
  });
}
