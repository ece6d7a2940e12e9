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
 * `clientFactory` of undici's ProxyAgent: the pool of connections to the proxy itself, whose
 * `connect()` (the `CONNECT` request of a tunnel) turns a socket failure into
 * {@link ProxyTunnelError}, so the request waiting for that tunnel fails once instead of
 * looping (cli-contract "Networks": not retried five times, let alone forever).
 */
export function tunnelClientFactory(origin: URL, opts: object): Dispatcher {
  const pool = new Pool(origin, opts);
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
