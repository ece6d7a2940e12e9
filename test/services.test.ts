import { describe, expect, it } from "vitest";
import { Deadline } from "../src/pacing/deadline.js";
import { createHttp, createServices } from "../src/services.js";
import { STUB_API, useMockAgent } from "./helpers/mock-agent.js";

// The one place a run's HTTP client is built, and the one place `no_api_key` is thrown.
const agent = useMockAgent();

describe("createHttp", () => {
  it("a keyless client asked to authenticate throws no_api_key (exit 3) with the library's hint", async () => {
    const client = createHttp({
      baseUrl: new URL(STUB_API),
      apiKey: undefined,
      userAgent: "svc-dl/test",
      dispatcher: agent(),
      missingKey: { given: "given", library: true },
    });
    await expect(
      client.send({ url: client.apiUrl("me"), method: "GET", budget: "read" }),
    ).rejects.toMatchObject({
      code: "no_api_key",
      exitCode: 3,
      message: `no API key given for ${STUB_API}`,
      hint: expect.stringContaining("Pass apiKey to createClient()"),
    });
  });

  it("sends the key it was given", async () => {
    agent()
      .get(STUB_API)
      .intercept({
        path: "/api/v1/me",
        method: "GET",
        headers: { authorization: "Bearer svc_live_k" },
      })
      .reply(200, "{}", { headers: { "content-type": "application/json" } });
    const client = createHttp({
      baseUrl: new URL(STUB_API),
      apiKey: "svc_live_k",
      userAgent: "svc-dl/test",
      dispatcher: agent(),
    });
    const res = await client.send({ url: client.apiUrl("me"), method: "GET", budget: "read" });
    expect(res.status).toBe(200);
    res.body.dump();
  });
});

describe("createServices", () => {
  const keyless = () => ({
    baseUrl: new URL(STUB_API),
    apiKey: undefined,
    userAgent: "svc-dl/test",
    dispatcher: agent(),
  });

  it("gives the run's clock and signal with the client built on them", async () => {
    const clock = { now: () => 42, sleep: async () => {} };
    const signal = new AbortController().signal;
    const run = createServices({
      ...keyless(),
      clock,
      signal,
    });
    expect(run.clock).toBe(clock);
    expect(run.signal).toBe(signal);
    expect(run.http.clock).toBe(clock);
    expect(run.http.signal).toBe(signal);
  });

  it("with a deadline, the clock's waits end at it and the signal is the caller's", async () => {
    const clock = { now: () => 0, sleep: async () => {} };
    const signal = new AbortController().signal;
    const deadline = new Deadline(5, clock);
    const run = createServices({
      ...keyless(),
      clock,
      signal,
      deadline,
    });
    expect(run.clock).not.toBe(clock);
    expect(run.http.clock).toBe(run.clock);
    expect(run.signal).toBe(signal);
    await expect(run.clock.sleep(10_000)).rejects.toMatchObject({ code: "deadline_reached" });
  });
});
