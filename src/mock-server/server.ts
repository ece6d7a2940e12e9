/**
 * `startMockService()`: starts the API origin and the CDN origin on
 * 127.0.0.1, keeps the request log, and exposes the control API
 * (`set()`, `revokeKey()`, `bumpPackVersion()`, `fileInfo()`, `close()`).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { handleApi } from "./api/router.js";
import { handleCdn } from "./cdn.js";
import type { ServiceCore } from "./core.js";
import type { Origin } from "./fault-types.js";
import { FaultState } from "./faults.js";
import { FileStore } from "./files.js";
import { addExtraPacks, defaultFixture, validateFixture } from "./fixture.js";
import { type RequestContext, readBody, sendError } from "./http-util.js";
import { DEFAULT_LIMITS, Limiter } from "./limiter.js";
import { requestIdFor } from "./request-id.js";
import type {
  FileInfo,
  FileRef,
  MockService,
  MockServiceOptions,
  RequestLogEntry,
  StatePatch,
} from "./service-types.js";
import { Signer } from "./signing.js";
import { MockState } from "./state.js";

function flatHeaders(
  h: IncomingMessage["headers"] | ReturnType<ServerResponse["getHeaders"]>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : String(v);
  }
  return out;
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/**
 * Start the mock service (spec: the whole interface). Both servers bind to
 * 127.0.0.1 only. Resolves once both are listening.
 */
export async function startMockService(options: MockServiceOptions = {}): Promise<MockService> {
  const fixture =
    options.fixture !== undefined ? validateFixture(options.fixture) : defaultFixture();
  addExtraPacks(fixture, options.extraPacks ?? 0);
  const state = new MockState(fixture);
  const now = options.now ?? Date.now;
  state.packSize = options.packSize ?? null;
  state.assetSize = options.assetSize ?? null;
  const faults = new FaultState(options.faults ?? {});
  const core: ServiceCore = {
    state,
    limiter: new Limiter({ ...DEFAULT_LIMITS, ...options.limits }, now),
    faults,
    files: new FileStore(faults),
    signer: new Signer(),
    settings: {
      ifNoneMatch: options.ifNoneMatch ?? true,
      signedUrlTtlSeconds: options.signedUrlTtlSeconds ?? 300,
      expiredUrlStatus: options.expiredUrlStatus ?? 403,
    },
    baseUrl: "",
    cdnUrl: "",
    now,
  };
  const requests: RequestLogEntry[] = [];
  // Requests received but not yet logged, and who waits for that count to reach zero.
  let unlogged = 0;
  const settledWaiters: (() => void)[] = [];
  const logToStderr = options.log === true;

  const handler = (origin: Origin) => (req: IncomingMessage, res: ServerResponse) => {
    const time = Date.now();
    const requestId = requestIdFor(req.headers["x-request-id"]);
    res.setHeader("x-request-id", requestId);
    let bytesSent = 0;
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    const count = (chunk: unknown) => {
      if (typeof chunk === "string") bytesSent += Buffer.byteLength(chunk);
      else if (chunk instanceof Uint8Array) bytesSent += chunk.length;
    };
    res.write = ((...args: unknown[]) => {
      count(args[0]);
      return write(...args);
    }) as ServerResponse["write"];
    res.end = ((...args: unknown[]) => {
      if (typeof args[0] !== "function") count(args[0]);
      return end(...args);
    }) as ServerResponse["end"];
    unlogged += 1;
    const entry: RequestLogEntry = {
      origin,
      method: req.method ?? "GET",
      url: req.url ?? "/",
      headers: flatHeaders(req.headers),
      body: null,
      status: 0,
      bytesSent: 0,
      requestId,
      responseHeaders: {},
      time,
    };
    res.once("close", () => {
      entry.status = res.statusCode;
      entry.bytesSent = bytesSent;
      entry.responseHeaders = flatHeaders(res.getHeaders());
      requests.push(entry);
      unlogged -= 1;
      if (unlogged === 0) for (const wake of settledWaiters.splice(0)) wake();
      if (logToStderr) {
        process.stderr.write(
          `${new Date(time).toISOString()} ${origin} ${entry.method} ${entry.url.replace(/sig=[0-9a-f]+/, "sig=…")} → ${entry.status} ${bytesSent}B ${Date.now() - time}ms ${requestId}\n`,
        );
      }
    });
    void (async () => {
      const ctx: RequestContext = {
        req,
        res,
        url: new URL(req.url ?? "/", "http://127.0.0.1"),
        requestId,
        ip: req.socket.remoteAddress ?? "unknown",
        body: null,
      };
      try {
        ctx.body = await readBody(req);
        entry.body = ctx.body;
        if (origin === "api") handleApi(core, ctx);
        else await handleCdn(core, ctx);
      } catch (err) {
        if (!res.headersSent) {
          sendError(ctx, 500, "internal_error", `Internal error: ${(err as Error).message}`);
        } else {
          res.destroy();
        }
      }
    })();
  };

  const api = createServer({ keepAliveTimeout: 5000 }, handler("api"));
  const cdn = createServer({ keepAliveTimeout: 5000 }, handler("cdn"));
  const apiPort = await listen(api, options.port ?? 0);
  let cdnPort: number;
  try {
    cdnPort = await listen(cdn, options.cdnPort ?? 0);
  } catch (err) {
    api.close();
    throw err;
  }
  core.baseUrl = `http://127.0.0.1:${apiPort}`;
  core.cdnUrl = `http://127.0.0.1:${cdnPort}`;

  const keys: Record<string, string> = {};
  for (const k of fixture.apiKeys) keys[k.id] = k.key;
  const licenseKeys: Record<string, string> = {};
  for (const l of fixture.licenseKeys) licenseKeys[l.id] = l.key;

  const mustKey = (idOrValue: string) => {
    const k = state.key(idOrValue);
    if (k === undefined) throw new Error(`svc-dl-mock: unknown API key ${idOrValue.slice(0, 13)}…`);
    return k;
  };
  const mustPack = (slug: string) => {
    const p = state.pack(slug);
    if (p === undefined) throw new Error(`svc-dl-mock: unknown pack ${slug}`);
    return p;
  };

  const set = (patch: StatePatch): void => {
    if (patch.apiDisabled !== undefined) state.apiDisabled = patch.apiDisabled;
    if (patch.faults !== undefined) core.faults.replace(patch.faults);
    if (patch.ifNoneMatch !== undefined) core.settings.ifNoneMatch = patch.ifNoneMatch;
    if (patch.signedUrlTtlSeconds !== undefined)
      core.settings.signedUrlTtlSeconds = patch.signedUrlTtlSeconds;
    if (patch.expiredUrlStatus !== undefined)
      core.settings.expiredUrlStatus = patch.expiredUrlStatus;
    if (patch.limits !== undefined) {
      core.limiter.limits = { ...core.limiter.limits, ...patch.limits };
      core.limiter.reset();
    }
    if (patch.packSize !== undefined) state.packSize = patch.packSize;
    if (patch.assetSize !== undefined) state.assetSize = patch.assetSize;
    for (const [id, p] of Object.entries(patch.keys ?? {})) Object.assign(mustKey(id), p);
    for (const [id, p] of Object.entries(patch.accounts ?? {})) {
      const a = state.account(id);
      if (a === undefined) throw new Error(`svc-dl-mock: unknown account ${id}`);
      Object.assign(a, p);
    }
    for (const [slug, p] of Object.entries(patch.packs ?? {})) Object.assign(mustPack(slug), p);
    for (const [slug, p] of Object.entries(patch.assets ?? {})) {
      const a = state.asset(slug);
      if (a === undefined) throw new Error(`svc-dl-mock: unknown asset ${slug}`);
      Object.assign(a, p);
    }
    for (const [id, p] of Object.entries(patch.orders ?? {})) {
      const o = state.order(id);
      if (o === undefined) throw new Error(`svc-dl-mock: unknown order ${id}`);
      Object.assign(o, p);
    }
  };

  const fileInfo = async (ref: FileRef): Promise<FileInfo> => {
    let spec: ReturnType<MockState["packFile"]>;
    if (ref.kind === "pack") {
      spec = state.packFile(mustPack(ref.slug), ref.edition ?? "standard");
    } else {
      const a = state.asset(ref.slug);
      if (a === undefined) throw new Error(`svc-dl-mock: unknown asset ${ref.slug}`);
      spec = state.assetFile(a);
    }
    const layout = core.files.layout(spec);
    return {
      size: layout.size,
      etag: FileStore.etag(spec),
      sha256: await core.files.sha256(spec),
      filename: FileStore.filename(spec),
      version: spec.version,
    };
  };

  const closeServer = (s: Server) =>
    new Promise<void>((resolve) => {
      s.close(() => resolve());
      s.closeAllConnections();
    });

  const demoKey = keys[fixture.demo.apiKey] ?? "";
  const demoLicense = licenseKeys[fixture.demo.licenseKey] ?? "";

  return {
    baseUrl: core.baseUrl,
    cdnUrl: core.cdnUrl,
    apiKey: demoKey,
    licenseKey: demoLicense,
    keys,
    licenseKeys,
    requests,
    clearLog: () => {
      requests.length = 0;
    },
    settled: () =>
      unlogged === 0 ? Promise.resolve() : new Promise((wake) => settledWaiters.push(wake)),
    set,
    revokeKey: (key) => {
      mustKey(key).revoked = true;
    },
    expireKey: (key) => {
      mustKey(key).expires_at = new Date(now() - 1000).toISOString();
    },
    bumpPackVersion: (slug) => {
      const p = mustPack(slug);
      p.version = (p.version ?? 1) + 1;
      return p.version;
    },
    resetLimits: () => core.limiter.reset(),
    fileInfo,
    close: async () => {
      await Promise.all([closeServer(api), closeServer(cdn)]);
    },
  };
}
