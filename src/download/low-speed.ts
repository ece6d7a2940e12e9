import { NetworkError } from "../errors/network-error.js";
import type { Transport } from "./transport.js";

/**
 * The low-speed rule of one body transfer (cli-contract "Networks"; {@link Transport.lowSpeed}):
 * call the returned function with every chunk's size (bytes);
 * throws a retryable NetworkError `timeout` once a whole window passed with fewer bytes than the
 * limit, so a trickling server cannot hold a run for long.
 */
export function lowSpeedCheck(
  client: Pick<Transport, "lowSpeed" | "clock">,
  requestId: string | null,
): (bytes: number) => void {
  const { bytes: limit, windowMs } = client.lowSpeed;
  let windowStart = client.clock.now();
  let received = 0;
  return (bytes) => {
    received += bytes;
    const now = client.clock.now();
    if (now - windowStart < windowMs) return;
    if (received < limit) {
      throw new NetworkError(
        `the server sent ${received} bytes in ${Math.round((now - windowStart) / 1000)} s, below the low-speed limit of ${limit} bytes per ${windowMs / 1000} s`,
        { code: "timeout", requestId },
      );
    }
    windowStart = now;
    received = 0;
  };
}
