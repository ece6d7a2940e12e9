import { describe, expect, it } from "vitest";
import { type BodyController, ResponseBody } from "../../src/http/response-body.js";

/** A controller that records what the body asked of the transport. */
function recorder(): BodyController & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    pause: () => calls.push("pause"),
    resume: () => calls.push("resume"),
    abort: () => calls.push("abort"),
  };
}

/** A promise and the function that settles it. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

describe("ResponseBody: one sink call at a time", () => {
  it("early bytes whose delivery waits: the socket resumes only once the sink settled", async () => {
    const body = new ResponseBody();
    const ctl = recorder();
    body.attach(ctl);
    body.push(Buffer.from("early-"));
    const waits = gate();
    const got: string[] = [];
    let calls = 0;
    const done = body.consume((chunk) => {
      got.push(chunk.toString());
      calls += 1;
      return calls === 1 ? waits.promise : undefined;
    });
    expect(ctl.calls).toEqual(["pause"]); // never "resume" while the first call waits
    // the transport hands over more (TLS decrypts what it already read): held, not delivered
    const borrowed = Buffer.from("later");
    body.push(borrowed);
    borrowed.fill(0x78); // the transport reuses its read buffer
    expect(got).toEqual(["early-"]);
    waits.open();
    await waits.promise;
    await Promise.resolve();
    expect(got).toEqual(["early-", "later"]);
    expect(ctl.calls.at(-1)).toBe("resume");
    body.end();
    await done;
  });

  it("lends no memory while a sink call waits or bytes are held", async () => {
    const body = new ResponseBody();
    body.attach(recorder());
    const lent = Buffer.alloc(16);
    const waits = gate();
    const done = body.consume(
      () => waits.promise,
      () => lent,
    );
    expect(body.target()).toBe(lent);
    body.push(Buffer.from("x"));
    expect(body.target()).toBeUndefined();
    body.push(Buffer.from("y"));
    expect(body.target()).toBeUndefined();
    waits.open();
    body.end();
    await done;
    expect(body.target()).toBeUndefined();
  });

  it("resolves only after the last sink call settled", async () => {
    const body = new ResponseBody();
    body.attach(recorder());
    const waits = gate();
    let settled = false;
    const done = body
      .consume(() => waits.promise)
      .then(() => {
        settled = true;
      });
    body.push(Buffer.from("last"));
    body.end();
    await Promise.resolve();
    await Promise.resolve();
    expect(settled).toBe(false);
    waits.open();
    await done;
    expect(settled).toBe(true);
  });

  it("a body that ends while a sink call waits: the transport is resumed before the reader resolves", async () => {
    // else the paused keep-alive connection holds the next request for the silence limit
    const body = new ResponseBody();
    const ctl = recorder();
    body.attach(ctl);
    const waits = gate();
    const done = body.consume(() => waits.promise);
    body.push(Buffer.from("all of it"));
    body.end();
    expect(ctl.calls).toEqual(["resume", "pause"]);
    waits.open();
    await done;
    expect(ctl.calls).toEqual(["resume", "pause", "resume"]);
  });

  it("a sink call that fails after the body's end rejects the reader (it never waits for ever)", async () => {
    // all bytes arrived with the head (a small file) while a paced sink call still waits; the
    // wait then fails (Ctrl-C, --max-duration, a full disk): the reader must hear of it
    const body = new ResponseBody();
    const ctl = recorder();
    body.attach(ctl);
    body.push(Buffer.from("whole small body"));
    body.end();
    let fail = (_err: Error): void => undefined;
    const waiting = new Promise<void>((_resolve, reject) => {
      fail = reject;
    });
    const outcome = body
      .consume(() => waiting)
      .then(
        () => "resolved",
        (err: Error) => err.message,
      );
    fail(new Error("interrupted by SIGINT"));
    const first = await Promise.race([outcome, turns(4).then(() => "still waiting")]);
    expect(first).toBe("interrupted by SIGINT");
    expect(ctl.calls.at(-1)).toBe("abort");
  });

  it("a sink that throws after the body's end rejects the reader", async () => {
    const body = new ResponseBody();
    body.attach(recorder());
    body.push(Buffer.from("whole small body"));
    body.end();
    const outcome = body
      .consume(() => {
        throw new Error("disk full");
      })
      .then(
        () => "resolved",
        (err: Error) => err.message,
      );
    expect(await Promise.race([outcome, turns(4).then(() => "still waiting")])).toBe("disk full");
  });
});

/** `n` event-loop turns. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
