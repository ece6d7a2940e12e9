import type { SvcError } from "../errors/svc-error.js";
import type { HttpResponse } from "../http/request-types.js";
import type { BodyLender } from "../http/response-body.js";
import { corruptDownload } from "./errors.js";
import { lowSpeedCheck } from "./low-speed.js";
import { openTransferGate } from "./rate-limit.js";
import type { BodyHead, DownloadSink } from "./sink.js";
import type { Transport } from "./transport.js";

/** How one body transfer ended: `failure` is what stopped it early, `overflow` when it broke its size. */
export interface BodyTransferEnd {
  failure: unknown;
  overflow: SvcError | undefined;
}

/**
 * Streams the body of a usable answer into `sink` (cli-contract "Downloads", "Networks"): the
 * low-speed rule, the run's transfer pacing (`--limit-rate`, `--max-duration`) and the announced
 * size (more bytes than `head.total` is `corrupt_download`). Never throws: the failure is
 * returned for the state machine to judge; `sink.end()` has been called either way.
 */
export async function transferBody<R>(
  transport: Transport,
  res: HttpResponse,
  head: BodyHead,
  sink: DownloadSink<R>,
  signal: AbortSignal | undefined,
): Promise<BodyTransferEnd> {
  let overflow: SvcError | undefined;
  let failure: unknown;
  const lowSpeed = lowSpeedCheck(transport, res.requestId);
  const gate = openTransferGate(transport.transferPacing, transport.clock, signal);
  let taken = sink.bytes();
  try {
    await res.body.consume(
      (chunk) => {
        lowSpeed(chunk.length);
        taken += chunk.length; // bytes a paced gate still holds count too
        if (head.total !== undefined && taken > head.total) {
          overflow = corruptDownload(
            `the server sent more than the announced ${head.total} bytes`,
            {
              httpStatus: res.status,
              requestId: res.requestId,
            },
          );
          throw overflow;
        }
        return gate ? gate.write(chunk, (c) => sink.write(c)) : sink.write(chunk);
      },
      lender(sink, gate === undefined),
    );
  } catch (err) {
    failure = err;
  } finally {
    await gate?.settled();
    sink.end();
  }
  return { failure, overflow };
}

/**
 * The sink's memory for the socket's next read (zero copy), when it has some to lend and each
 * chunk reaches it during its data callback: a paced chunk may wait, and a read must never land
 * on bytes still waiting.
 */
function lender<R>(sink: DownloadSink<R>, direct: boolean): BodyLender | undefined {
  return direct && sink.lend ? () => sink.lend?.() : undefined;
}
