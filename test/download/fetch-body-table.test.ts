import { describe, expect, it } from "vitest";
import { fetchBody } from "../../src/download/fetch-body.js";
import type { BodyHead, DownloadSink, ResumePoint } from "../../src/download/sink.js";
import type { HttpClient } from "../../src/http/client.js";
import type { HttpResponse } from "../../src/http/request-types.js";
import { STUB_API, stubClient, useMockAgent } from "../helpers/mock-agent.js";

// fetchBody's state machine, one row per answer, over undici's MockAgent (no socket) and a sink
// that keeps the bytes in memory. End-to-end cases live in test/download/*.e2e.test.ts and
// test/reliability (a chunked body too: MockAgent always sends Content-Length).
const API = STUB_API;
const agent = useMockAgent();
const CDN = "https://cdn.example";
const ROUTE = "/api/v1/assets/cube/download";
const ETAG = '"v1"';

/** What the sink saw, and the outcome it returns. */
class MemorySink implements DownloadSink<string> {
  held: Buffer;
  resets = 0;
  /** `sticky`: the bytes come back after a reset (a sink that keeps getting partial data). */
  sticky = false;
  constructor(
    held = "",
    readonly conditionalEtag?: string,
  ) {
    this.held = Buffer.from(held);
  }
  resumePoint(): ResumePoint | undefined {
    return this.held.length > 0 ? { offset: this.held.length, etag: ETAG, total: 10 } : undefined;
  }
  unchanged(): string {
    return "unchanged";
  }
  async completeOnDisk(_res: HttpResponse, total: number): Promise<string> {
    return `complete on disk (${total})`;
  }
  begin(_res: HttpResponse, head: BodyHead): undefined {
    this.held = this.held.subarray(0, head.start);
    return undefined;
  }
  write(chunk: Buffer): undefined {
    this.held = Buffer.concat([this.held, chunk]);
    return undefined;
  }
  bytes(): number {
    return this.held.length;
  }
  end(): void {}
  reset(): void {
    this.resets++;
    if (!this.sticky) this.held = Buffer.alloc(0);
  }
  async finish(_res: HttpResponse, head: BodyHead): Promise<string> {
    return `finished ${this.held.toString()} (total ${head.total ?? "unknown"})`;
  }
}

const client = (): HttpClient => stubClient(agent());

function run(sink: MemorySink): Promise<string> {
  return fetchBody(client(), { source: { url: new URL(`${API}${ROUTE}`) }, label: "cube" }, sink);
}

/** The API route redirects to the CDN file (`times` answers). */
function redirectToCdn(times = 1): void {
  agent()
    .get(API)
    .intercept({ path: ROUTE, method: "GET" })
    .reply(302, "", { headers: { location: `${CDN}/cube.glb?sig=1` } })
    .times(times);
}

function cdn(status: number, body: string, headers: Record<string, string>, times = 1): void {
  agent()
    .get(CDN)
    .intercept({ path: "/cube.glb?sig=1", method: "GET" })
    .reply(status, body, { headers: { etag: ETAG, ...headers } })
    .times(times);
}

describe("fetchBody: one row per answer", () => {
  it("200: the whole body", async () => {
    redirectToCdn();
    cdn(200, "0123456789", { "content-length": "10" });
    expect(await run(new MemorySink())).toBe("finished 0123456789 (total 10)");
  });

  it("206: resumes after the bytes held", async () => {
    redirectToCdn();
    cdn(206, "456789", { "content-range": "bytes 4-9/10", "content-length": "6" });
    expect(await run(new MemorySink("0123"))).toBe("finished 0123456789 (total 10)");
  });

  it("304 to If-None-Match: unchanged, body not read", async () => {
    redirectToCdn();
    cdn(304, "", {});
    expect(await run(new MemorySink("", ETAG))).toBe("unchanged");
  });

  it("416 bytes */N with N the bytes held: complete on disk", async () => {
    redirectToCdn();
    cdn(416, "", { "content-range": "bytes */10" });
    expect(await run(new MemorySink("0123456789"))).toBe("complete on disk (10)");
  });

  it("416 bytes */N with N the bytes held but another ETag (If-Range ignored): the new file from zero", async () => {
    redirectToCdn(2);
    cdn(416, "", { "content-range": "bytes */10", etag: '"v2"' });
    cdn(200, "abcdefghij", { "content-length": "10", etag: '"v2"' });
    const sink = new MemorySink("0123456789");
    expect(await run(sink)).toBe("finished abcdefghij (total 10)");
    expect(sink.resets).toBe(1);
  });

  it("403 from the CDN (expired link): the route is asked again for a fresh one", async () => {
    redirectToCdn(2);
    cdn(403, "expired", { "content-length": "7" });
    cdn(200, "0123456789", { "content-length": "10" });
    expect(await run(new MemorySink())).toBe("finished 0123456789 (total 10)");
  });

  it("a 416 that names another size restarts from zero, at most 3 times", async () => {
    redirectToCdn(4);
    cdn(416, "", { "content-range": "bytes */99" }, 4);
    const sink = new MemorySink("0123");
    sink.sticky = true;
    await expect(run(sink)).rejects.toThrow(/3 restarts from zero/);
    expect(sink.resets).toBe(3);
  });

  it("more bytes than announced: corrupt_download (exit 7)", async () => {
    redirectToCdn();
    cdn(200, "0123456789", { "content-length": "4" });
    await expect(run(new MemorySink())).rejects.toMatchObject({
      code: "corrupt_download",
      exitCode: 7,
    });
  });
});
