import { type Dispatcher, Pool } from "undici";

/** Code of {@link ProxyTunnelError}. */
export const PROXY_TUNNEL_CLOSED = "SVC_PROXY_TUNNEL_CLOSED";

/**
 * The proxy closed or reset its connection instead of answering a `CONNECT` (some proxies do
 * that for a host they cannot resolve or reach). Its own code, because undici treats its
 * `UND_ERR_SOCKET` as recoverable and would open tunnel after tunnel, without end, for a
 * request it never fails.
 */
export class ProxyTunnelError extends Error {
  override name = "ProxyTunnelError";
  readonly code = PROXY_TUNNEL_CLOSED;
  constructor(cause: unknown) {
    super("the proxy closed the connection instead of opening the tunnel", { cause });
  }
}

/**
 * `clientFactory` of undici's ProxyAgent: the pool of connections to the proxy itself, with the
 * run's silence limit `idleMs` (ms) on the `CONNECT` answer, whose `connect()` turns a socket
 * failure into {@link ProxyTunnelError}, so the request waiting for that tunnel fails once
 * instead of looping (cli-contract "Networks": not retried five times, let alone forever).
 */
export function tunnelClientFactory(idleMs: number): (origin: URL, opts: object) => Dispatcher {
  return (origin, opts) => tunnelPool(origin, opts, idleMs);
}

function tunnelPool(origin: URL, opts: object, idleMs: number): Dispatcher {
  // A proxy that never answers the CONNECT is silence like any other: the run's limit applies
  // (undici's own default for the proxy's pool is 300 s).
  const pool = new Pool(origin, {
    ...opts,
    headersTimeout: idleMs,
    bodyTimeout: idleMs,
    connectTimeout: idleMs,
  });
  const connect = pool.connect.bind(pool) as (
    options: Dispatcher.ConnectOptions,
  ) => Promise<Dispatcher.ConnectData>;
  const guarded = async (options: Dispatcher.ConnectOptions): Promise<Dispatcher.ConnectData> => {
    try {
      return await connect(options);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      throw code === "UND_ERR_SOCKET" || code === "ECONNRESET" || code === "EPIPE"
        ? new ProxyTunnelError(err)
        : err;
    }
  };
  Object.defineProperty(pool, "connect", { value: guarded });
  return pool;
}
