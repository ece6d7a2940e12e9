import { describe, expect, it } from "vitest";
import { fetchBody } from "../../src/download/fetch-body.js";
import type { BodyHead, DownloadSink } from "../../src/download/sink.js";
import type { Transport } from "../../src/download/transport.js";
import { InterruptedError } from "../../src/errors/interrupted-error.js";
import { NetworkError } from "../../src/errors/network-error.js";
import { SvcError } from "../../src/errors/svc-error.js";
import { LOW_SPEED_LIMIT } from "../../src/http/dispatcher.js";
import type { HttpResponse, RequestSpec } from "../../src/http/request-types.js";
import { ResponseBody } from "../../src/http/response-body.js";
import { DEFAULT_RETRY, type Failure, RetryBudget } from "../../src/http/retry.js";
import type { Clock } from "../../src/model.js";

// fetchBody over a hand-written Transport (no HttpClient, no undici): the few members it uses
// are all a test needs, and the abort signal comes from the caller's options.
const CDN = "https://cdn.example/cube.glb";

/** A complete answer whose body is already in memory. */
function answer(status: number, body: string): HttpResponse {
  const bytes = Buffer.from(body);
  const res = new ResponseBody();
  res.attach({ pause: () => undefined, resume: () => undefined, abort: () => undefined });
  res.push(bytes);
  res.end();
  return {
    status,
    headers: { "content-length": String(bytes.length), etag: '"v1"' },
    body: res,
    url: new URL(CDN),
    requestId: "req-1",
  };
}

/** Answers (or throws) from a script; records the requests and the signals its clock was given. */
class TransportDouble implements Transport {
  readonly serviceOrigin = "https://svc.example";
  readonly lowSpeed = LOW_SPEED_LIMIT;
  readonly transferPacing = undefined;
  readonly sent: RequestSpec[] = [];
  readonly sleptWith: (AbortSignal | undefined)[] = [];
  readonly clock: Clock = {
    now: () => 0,
    sleep: async (_ms, signal) => {
      this.sleptWith.push(signal);
    },
  };
  constructor(readonly script: (HttpResponse | Error)[]) {}
  async send(spec: RequestSpec): Promise<HttpResponse> {
    this.sent.push(spec);
    const next = this.script.shift();
    if (next === undefined) throw new Error("no more answers scripted");
    if (next instanceof Error) throw next;
    return next;
  }
  newRetryBudget(): RetryBudget {
    return new RetryBudget({ ...DEFAULT_RETRY, random: () => 0.5 }, this.clock, () => undefined);
  }
  async failureFromResponse(res: HttpResponse): Promise<Failure | SvcError> {
    return this.errorFromResponse(res);
  }
  failureFromError(err: unknown): Failure {
    if (err instanceof NetworkError) return { kind: "network", error: err };
    throw err;
  }
  async errorFromResponse(res: HttpResponse): Promise<SvcError> {
    res.body.dump();
    return new SvcError(`HTTP ${res.status}`, { code: "not_found", httpStatus: res.status });
  }
  networkError(err: unknown): NetworkError {
    return new NetworkError(String(err), { requestId: null });
  }
}

/** Keeps the bytes; `onWrite` runs at every chunk. */
function memorySink(
  onWrite: () => void = () => undefined,
): DownloadSink<string> & { held: string } {
  return {
    held: "",
    resumePoint: () => undefined,
    unchanged: () => "unchanged",
    completeOnDisk: async () => "complete",
    begin: () => undefined,
    write(chunk: Buffer) {
      onWrite();
      this.held += chunk.toString();
      return undefined;
    },
    bytes() {
      return this.held.length;
    },
    end: () => undefined,
    reset() {
      this.held = "";
    },
    async finish(_res: HttpResponse, head: BodyHead) {
      return `${this.held} (${head.total})`;
    },
  };
}

describe("fetchBody over a Transport double", () => {
  it("retries a dropped connection and delivers the body, the retry wait given the caller's signal", async () => {
    const transport = new TransportDouble([
      new NetworkError("connection reset", { requestId: null }),
      answer(200, "glTF-bytes"),
    ]);
    const signal = new AbortController().signal;
    const sink = memorySink();
    const result = await fetchBody(
      transport,
      { source: { url: new URL(CDN) }, signal, label: "cube" },
      sink,
    );
    expect(result).toBe("glTF-bytes (10)");
    expect(transport.sent.map((s) => [s.url.href, s.budget, s.headers?.range])).toEqual([
      [CDN, "download", undefined],
      [CDN, "download", undefined],
    ]);
    expect(transport.sleptWith).toEqual([signal]);
  });

  it.each([
    ["an InterruptedError reason (SIGTERM)", new InterruptedError("SIGTERM"), 143],
    ["a plain abort (a library caller's own signal)", undefined, 130],
  ])(
    "the caller's signal aborting mid-body, with %s, ends with InterruptedError",
    async (_, reason, exit) => {
      const controller = new AbortController();
      const transport = new TransportDouble([answer(200, "glTF-bytes")]);
      const sink = memorySink(() => controller.abort(reason));
      const err = await fetchBody(
        transport,
        { source: { url: new URL(CDN) }, signal: controller.signal, label: "cube" },
        sink,
      ).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InterruptedError);
      expect((err as InterruptedError).exitCode).toBe(exit);
    },
  );
});
