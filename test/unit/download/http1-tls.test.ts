import { createHash } from "node:crypto";
import { once } from "node:events";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DirectBody, directRequest } from "../../../src/download/http1.js";
import { makeSelfSignedCert } from "../../helpers/tls.js";

// The download transport over real TLS: a self-signed certificate for the name `localhost` only,
// made with the machine's openssl and served by node:https on 127.0.0.1.
let server: Server;
let port: number;
let cert: string;
const payload = Buffer.alloc(5 * 1024 * 1024 + 3);
for (let i = 0; i < payload.length; i++) payload[i] = (i * 31 + 7) & 0xff;

beforeAll(async () => {
  const made = makeSelfSignedCert(["DNS:localhost"]);
  if (!made) throw new Error("openssl could not make a test certificate");
  cert = made.cert;
  server = createServer({ key: made.key, cert }, (req, res) => {
    const start = Number(/^bytes=(\d+)-$/.exec(req.headers.range ?? "")?.[1] ?? 0);
    res.writeHead(start > 0 ? 206 : 200, { "content-length": String(payload.length - start) });
    res.end(payload.subarray(start));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  port = (server.address() as AddressInfo).port;
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

function sha256Of(body: DirectBody): Promise<string> {
  const hash = createHash("sha256");
  return new Promise((resolve, reject) => {
    body.once("end", () => resolve(hash.digest("hex")));
    body.once("error", reject);
    body.setSink((view) => hash.update(view));
  });
}

describe("directRequest over https", () => {
  it("reads a whole body and a Range through TLS with the server name checked", async () => {
    const whole = await directRequest(new URL(`https://localhost:${port}/f`), {
      method: "GET",
      headers: {},
      tls: { ca: cert },
    });
    expect(whole.statusCode).toBe(200);
    expect(await sha256Of(whole.body)).toBe(createHash("sha256").update(payload).digest("hex"));

    const part = await directRequest(new URL(`https://localhost:${port}/f`), {
      method: "GET",
      headers: { range: "bytes=1000-" },
      tls: { ca: cert },
    });
    expect(part.statusCode).toBe(206);
    expect(await sha256Of(part.body)).toBe(
      createHash("sha256").update(payload.subarray(1000)).digest("hex"),
    );
  });

  it("refuses a certificate it cannot verify", async () => {
    await expect(
      directRequest(new URL(`https://localhost:${port}/f`), { method: "GET", headers: {} }),
    ).rejects.toMatchObject({ code: expect.stringMatching(/SELF_SIGNED|UNABLE_TO_VERIFY|CERT/) });
  });

  it("refuses a certificate for another host name", async () => {
    await expect(
      directRequest(new URL(`https://127.0.0.1:${port}/f`), {
        method: "GET",
        headers: {},
        tls: { ca: cert },
      }),
    ).rejects.toMatchObject({ code: "ERR_TLS_CERT_ALTNAME_INVALID" });
  });
});
