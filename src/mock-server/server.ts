/**
 * `startMockService()`: starts the API origin and the CDN origin on
 * 127.0.0.1, keeps the request log, and exposes the control API
 * (`set()`, `revokeKey()`, `bumpPackVersion()`, `fileInfo()`, `close()`).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { handleApi } from "./api/router.js";
import { handleCdn } from "./cdn.js";
import { applyPatch, fileInfo, mustKey, mustPack } from "./control.js";
import type { ServiceCore } from "./core.js";
import type { Origin } from "./fault-types.js";
import { FaultState } from "./faults.js";
import { FileStore } from "./files.js";
import { addExtraPacks, defaultFixture, validateFixture } from "./fixture.js";
import { type RequestContext, readBody, sendError } from "./http-util.js";
import { DEFAULT_LIMITS, Limiter } from "./limiter.js";
import { requestIdFor } from "./request-id.js";
import { RequestLog } from "./request-log.js";
import type { MockService, MockServiceOptions } from "./service-types.js";
import { Signer } from "./signing.js";
import { MockState } from "./state.js";

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

const closeServer = (s: Server) =>
  new Promise<void>((resolve) => {
    s.close(() => resolve());
    s.closeAllConnections();
  });

/** The service core from the options (its origins' URLs are set once both listen). */
function createCore(options: MockServiceOptions): ServiceCore {
  const fixture =
    options.fixture !== undefined ? validateFixture(options.fixture) : defaultFixture();
  addExtraPacks(fixture, options.extraPacks ?? 0);
  const state = new MockState(fixture);
  const now = options.now ?? Date.now;
  state.packSize = options.packSize ?? null;
  state.assetSize = options.assetSize ?? null;
  const faults = new FaultState(options.faults ?? {});
  return {
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
}

/** The request listener of one origin: log entry, request id, body, then the origin's routes. */
function originHandler(core: ServiceCore, log: RequestLog, origin: Origin) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const requestId = requestIdFor(req.headers["x-request-id"]);
    res.setHeader("x-request-id", requestId);
    const entry = log.begin(origin, req, res, requestId);
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
}

/** Every key of one kind in the fixture: id → full key. */
const keysById = (keys: { id: string; key: string }[]) =>
  Object.fromEntries(keys.map((k) => [k.id, k.key])) as Record<string, string>;

/**
 * Start the mock service (spec: the whole interface). Both servers bind to
 * 127.0.0.1 only. Resolves once both are listening.
 */
export async function startMockService(options: MockServiceOptions = {}): Promise<MockService> {
  const core = createCore(options);
  const { state } = core;
  const log = new RequestLog(options.log === true);
  const api = createServer({ keepAliveTimeout: 5000 }, originHandler(core, log, "api"));
  const cdn = createServer({ keepAliveTimeout: 5000 }, originHandler(core, log, "cdn"));
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
  const keys = keysById(state.fixture.apiKeys);
  const licenseKeys = keysById(state.fixture.licenseKeys);

  return {
    baseUrl: core.baseUrl,
    cdnUrl: core.cdnUrl,
    apiKey: keys[state.fixture.demo.apiKey] ?? "",
    licenseKey: licenseKeys[state.fixture.demo.licenseKey] ?? "",
    keys,
    licenseKeys,
    requests: log.requests,
    clearLog: () => log.clear(),
    settled: () => log.settled(),
    set: (patch) => applyPatch(core, patch),
    revokeKey: (key) => {
      mustKey(state, key).revoked = true;
    },
    expireKey: (key) => {
      mustKey(state, key).expires_at = new Date(core.now() - 1000).toISOString();
    },
    bumpPackVersion: (slug) => {
      const p = mustPack(state, slug);
      p.version = (p.version ?? 1) + 1;
      return p.version;
    },
    resetLimits: () => core.limiter.reset(),
    fileInfo: (ref) => fileInfo(core, ref),
    close: async () => {
      await Promise.all([closeServer(api), closeServer(cdn)]);
    },
  };
}
