import type { ResponseBody } from "../http/response-body.js";
import type { HashingFileWriter } from "./writer.js";

/** Why a body transfer stopped early. `network`: the transfer failed; `overflow`: more bytes than announced. */
export class PumpError extends Error {
  override name = "PumpError";
  readonly reason: "network" | "overflow";
  constructor(reason: "network" | "overflow", message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.reason = reason;
  }
}

/**
 * Streams a response body into `writer` straight from undici's data callback: each chunk is
 * hashed and gathered (written with one `writevSync` per MiB) before the next one is taken, so
 * nothing accumulates in memory. `limit` (bytes in the file) stops a body that sends more than
 * announced. Resolves at the body's end. Rejects with PumpError `overflow`, PumpError
 * `network` (its `cause` is undici's error: connection lost, bad framing, silence) or the
 * writer's FileSystemError; the response is aborted on any failure.
 */
export async function pumpToWriter(
  body: ResponseBody,
  writer: HashingFileWriter,
  opts: { limit: number | undefined; onBytes: (n: number) => void },
): Promise<void> {
  let local: unknown;
  try {
    await body.consume((chunk) => {
      if (opts.limit !== undefined && writer.bytes + chunk.length > opts.limit) {
        local = new PumpError(
          "overflow",
          `the server sent more than the announced ${opts.limit} bytes`,
        );
        throw local;
      }
      try {
        writer.write(chunk);
      } catch (err) {
        local = err;
        throw err;
      }
      opts.onBytes(chunk.length);
      return undefined;
    });
  } catch (err) {
    if (err === local) throw err;
    throw new PumpError("network", `connection lost during the download: ${describe(err)}`, err);
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Abandons a response body at once without reading it (an unchanged file, a response that is
 * not used): the connection is closed.
 */
export function dropBody(body: ResponseBody): void {
  body.abort();
}
