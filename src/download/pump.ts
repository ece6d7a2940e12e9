import type { ResponseBody } from "../api/body.js";
import { DirectBody } from "./http1.js";
import type { HashingFileWriter } from "./writer.js";

/** Why a body transfer stopped early. `network`: the connection failed; `overflow`: more bytes than announced. */
export class PumpError extends Error {
  override name = "PumpError";
  readonly reason: "network" | "overflow";
  constructor(reason: "network" | "overflow", message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.reason = reason;
  }
}

/**
 * Streams a response body into `writer`: a {@link DirectBody} (the socket transport) through
 * its synchronous sink, straight from the reused socket read buffer; any other body from
 * `'data'` events. Each chunk is hashed and written synchronously before the next one is
 * taken, so nothing accumulates in memory (the socket is read only as fast as the disk takes
 * it). `limit` (bytes in the file) stops a body that sends
 * more than announced. Resolves at the body's end. Rejects with PumpError (`network`,
 * `overflow`) or the writer's FileSystemError; the body is destroyed on any failure.
 */
export function pumpToWriter(
  body: ResponseBody,
  writer: HashingFileWriter,
  opts: { limit: number | undefined; onBytes: (n: number) => void },
): Promise<void> {
  const direct = body instanceof DirectBody ? body : undefined;
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (err: unknown): void => {
      if (settled) return;
      settled = true;
      if (!direct) body.removeListener("data", onData);
      body.on("error", () => undefined);
      body.destroy();
      reject(err);
    };
    const onData = (chunk: Buffer): void => {
      if (settled) return;
      try {
        if (opts.limit !== undefined && writer.bytes + chunk.length > opts.limit) {
          fail(
            new PumpError(
              "overflow",
              `the server sent more than the announced ${opts.limit} bytes`,
            ),
          );
          return;
        }
        writer.write(chunk);
        opts.onBytes(chunk.length);
      } catch (err) {
        fail(err);
      }
    };
    if (body.destroyed || body.errored) {
      // The connection failed while we were busy (e.g. writing the metadata): no events will come.
      const cause = body.errored ?? undefined;
      fail(new PumpError("network", "connection lost before the download started", cause));
      return;
    }
    if (!direct) body.on("data", onData);
    body.once("end", () => {
      if (settled) return;
      settled = true;
      resolve();
    });
    body.once("error", (err: Error) => {
      fail(new PumpError("network", `connection lost during the download: ${err.message}`, err));
    });
    body.once("close", () => {
      fail(new PumpError("network", "connection closed before the download ended"));
    });
    direct?.setSink(onData);
  });
}

/**
 * Abandons a response body at once without reading it (an unchanged file, a response that is
 * not used): the connection is closed, and the abort error it emits is swallowed.
 */
export function dropBody(body: ResponseBody): void {
  body.on("error", () => undefined);
  body.destroy();
}
