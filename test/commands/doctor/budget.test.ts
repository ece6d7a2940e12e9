import { type AddressInfo, createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDoctor } from "../../../src/commands/doctor/doctor.run.js";
import { NETWORK_PROBE_BUDGET_MS } from "../../../src/commands/doctor/probe.js";
import { loadColour } from "../../../src/io/colour.js";
import { DEFAULT_GLOBALS, Session } from "../../../src/session.js";
import { testContext } from "../../helpers/context.js";
import { NO_PROXY_ENV } from "../../helpers/proxy.js";

/**
 * doctor's network probes share one short budget (cli-contract "Operating unattended",
 * doctor): against a host that accepts connections and never answers, doctor ends within it and
 * names the probe that ran out. The budget is injected small; nothing sleeps.
 */

const KEY = "svc_live_DoctorBudgetKey0123456789abcdefghij_0d0c0b0a";
beforeAll(() => loadColour());
const sockets = new Set<Socket>();
const servers: Server[] = [];
afterAll(async () => {
  for (const s of sockets) s.destroy();
  for (const s of servers) await new Promise((r) => s.close(r));
});

/** A TCP server on 127.0.0.1 that accepts every connection and never sends a byte. */
async function silentHost(): Promise<number> {
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => undefined);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return (server.address() as AddressInfo).port;
}

async function doctor(base: string, budgetMs: number) {
  const { ctx, stdout } = testContext({
    env: { ...NO_PROXY_ENV, SVC_BASE_URL: base, SVC_API_KEY: KEY },
  });
  const session = new Session(ctx, { ...DEFAULT_GLOBALS, json: true });
  const started = performance.now();
  try {
    await runDoctor(session, undefined, { probeBudgetMs: budgetMs });
  } finally {
    await session.close();
  }
  const ms = performance.now() - started;
  const doc = JSON.parse(stdout.text) as {
    checks: { name: string; status: string; finding: string }[];
  };
  return { ms, check: (name: string) => doc.checks.find((c) => c.name === name) };
}

describe("doctor's network probes share one budget", () => {
  it("is at most 15 s", () => {
    expect(NETWORK_PROBE_BUDGET_MS).toBeLessThanOrEqual(15_000);
  });

  it("an http service that never answers: the key check runs out of the budget, named", async () => {
    const port = await silentHost();
    const r = await doctor(`http://127.0.0.1:${port}`, 600);
    expect(r.check("tcp")?.status).toBe("ok");
    expect(r.check("key-accepted")).toMatchObject({ status: "fail" });
    expect(r.check("key-accepted")?.finding).toContain(
      "key-accepted (GET /api/v1/me): no answer within doctor's 0.6 s budget for network probes",
    );
    expect(r.check("key-accepted")?.finding).toContain("[timeout]");
    // one try, not the retry rules' 4 silent attempts of 30 s
    expect(r.ms).toBeLessThan(600 + 4000);
  });

  it("an https service that never answers: the TLS handshake runs out of the budget, named", async () => {
    const port = await silentHost();
    const r = await doctor(`https://127.0.0.1:${port}`, 600);
    expect(r.check("tls")).toMatchObject({ status: "fail" });
    expect(r.check("tls")?.finding).toBe(
      `TLS handshake with 127.0.0.1:${port}: no answer within doctor's 0.6 s budget for network probes [timeout]`,
    );
    expect(r.check("key-accepted")).toBeUndefined();
    expect(r.ms).toBeLessThan(600 + 4000);
  });
});
