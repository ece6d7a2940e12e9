/**
 * Messages that point at the base URL when it is the cause (cli-contract "Configuration",
 * "Networks"): a base URL with a wrong path gets `route_not_found` naming the base URL and
 * where it was set; an `https://` base URL aimed at a plain-HTTP port gets `not_tls` (not a
 * certificate error), at once, with a hint about the scheme and port.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { useMockService } from "../helpers/mock.js";

const shared = useMockService();

interface ErrorDoc {
  code: string;
  message: string;
  hint: string | null;
  retryable: boolean;
  request_id: string | null;
}

function errorLine(stderr: string): ErrorDoc {
  return (JSON.parse(stderr.trim().split("\n").at(-1) ?? "{}") as { error: ErrorDoc }).error;
}

describe("a base URL with a path the service does not have", () => {
  it("packs list → exit 5 route_not_found naming the route, the base URL and SVC_BASE_URL", async () => {
    const base = `${shared.mock.baseUrl}/store`;
    const r = await runCli(["packs", "list", "--json"], {
      env: { ...shared.env(), SVC_BASE_URL: base },
    });
    expect(r.code, r.stderr).toBe(5);
    const error = errorLine(r.stderr);
    expect(error.code).toBe("route_not_found");
    expect(error.message).toBe(
      `the service has no route /api/v1/packs under the base URL ${base} (from SVC_BASE_URL): HTTP 404 not_found`,
    );
    expect(error.hint).toBe(
      `Check the base URL ${base} (from SVC_BASE_URL): it is the service's address without /api, perhaps ${shared.mock.baseUrl} without the path /store.`,
    );
    expect(error.request_id).toEqual(expect.any(String));
    expect(error.retryable).toBe(false);
  });

  it("whoami with --base-url says the flag", async () => {
    const base = `${shared.mock.baseUrl}/store`;
    const r = await runCli(["whoami", "--base-url", base], { env: shared.env() });
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain(`under the base URL ${base} (from --base-url)`);
    expect(r.stderr).toContain("code route_not_found");
  });

  it("pack get (its catalog lookup) → route_not_found too, never a hint that fails the same way", async () => {
    const base = `${shared.mock.baseUrl}/store`;
    const r = await runCli(["pack", "get", "some-pack", "--json"], {
      env: { ...shared.env(), SVC_BASE_URL: base },
    });
    expect(r.code, r.stderr).toBe(5);
    const error = errorLine(r.stderr);
    expect(error.code).toBe("route_not_found");
    expect(error.hint).not.toContain("packs list");
  });

  it("asset get → not_found whose message names the base URL it was looked up under", async () => {
    const base = `${shared.mock.baseUrl}/store`;
    const r = await runCli(["asset", "get", "some-asset", "--json"], {
      env: { ...shared.env(), SVC_BASE_URL: base },
    });
    expect(r.code, r.stderr).toBe(5);
    const error = errorLine(r.stderr);
    expect(error.code).toBe("not_found");
    expect(error.message).toContain(`(under the base URL ${base} (from SVC_BASE_URL))`);
  });

  it("the right base URL still gets the service's own not_found for a missing pack", async () => {
    const r = await runCli(["pack", "get", "no-such-pack", "--json"], { env: shared.env() });
    expect(r.code, r.stderr).toBe(5);
    const error = errorLine(r.stderr);
    expect(error.code).toBe("not_found");
    expect(error.message).not.toContain("base URL");
  });
});

describe("https:// to a port that speaks plain HTTP", () => {
  it("→ exit 7 not_tls at once, naming the host; the hint is about the scheme and port, not a CA", async () => {
    let connections = 0;
    const server = createServer((_req, res) => res.writeHead(400).end());
    server.on("connection", () => {
      connections += 1;
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const r = await runCli(["whoami", "--json"], {
        env: { ...shared.env(), SVC_BASE_URL: base },
      });
      expect(r.code, r.stderr).toBe(7);
      const error = errorLine(r.stderr);
      expect(error.code).toBe("not_tls");
      expect(error.message).toContain(`${new URL(base).host} does not speak TLS`);
      expect(error.retryable).toBe(false);
      expect(error.hint).toBe(
        `Check the scheme and port of the base URL ${base} (from SVC_BASE_URL): use the service's https port, or http:// for a service on this machine.`,
      );
      expect(r.stderr).not.toContain("--ca-file");
      expect(connections).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
