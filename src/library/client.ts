import { resolve } from "node:path";
import { assertSendableKey, isLicenseKey } from "../config/api-key.js";
import { parseBaseUrl } from "../config/base-url.js";
import { packageVersion } from "../context.js";
import { toSvcError } from "../errors/format.js";
import { SvcError } from "../errors/svc-error.js";
import { UsageError } from "../errors/usage-error.js";
import { type NetworkSettings, proxySettings } from "../http/dispatcher.js";
import { tlsTrust } from "../http/tls-trust.js";
import type { Deadline } from "../pacing/deadline.js";
import { createServices, type Services } from "../services.js";
import {
  downloadOne,
  installManifest,
  type OperationContext,
  syncDir,
  verifyDirectory,
} from "./operations.js";
import type { CallOptions, ClientOptions, PacingOptions, SvcDlClient } from "./types.js";
import { type OperationPacing, operationPacing } from "./unattended.js";

/**
 * Creates a client of the asset download service for Node programs (cli-contract "Library"),
 * sharing the CLI's code: the same HTTP core (request ids, pacing, retries, redirects), the same
 * download engine (resume, verification, state file, directory lock) and the same install.
 * It never prints, never exits, and reads no environment but `options.env` (default none: see
 * {@link ClientOptions.env}). Failures are thrown as errors with `code`, `exitCode`,
 * `httpStatus`, `requestId` and `hint` (SvcError). Throws UsageError (exitCode 2) at once for a
 * bad `baseUrl`, an `apiKey` that is a license key or malformed, a `proxy` (or proxy variable of
 * `env`) that is not an `http(s)://` URL (`invalid_proxy`), and a `caFile` that cannot be read
 * or holds no PEM certificate (`invalid_ca_file`).
 */
export function createClient(options: ClientOptions): SvcDlClient {
  const baseUrl = parseBaseUrl(String(options.baseUrl), "argument");
  const apiKey = apiKeyOf(options);
  const network = networkOf(options);
  const userAgent = `svc-dl/${packageVersion()}`;
  const services = (pacing: OperationPacing): Services =>
    createServices({
      baseUrl,
      userAgent,
      network,
      ...pacing,
      ...(options.maxWaitSeconds !== undefined
        ? { retry: { maxWaitSeconds: options.maxWaitSeconds } }
        : {}),
      ...(options.onNotice ? { onNotice: options.onNotice } : {}),
      apiKey: apiKey || undefined,
      missingKey: { given: "given", library: true },
    });

  /**
   * Runs one operation with its own services (an HTTP client paced by `limitRate`/`maxDuration`,
   * whose window starts now; the run's clock and signal), built on first use and closed
   * afterwards; maps an abort to `aborted`.
   */
  async function call<T>(
    opts: CallOptions & PacingOptions,
    op: (run: () => Services, deadline: Deadline | undefined) => Promise<T>,
  ): Promise<T> {
    const { signal } = opts;
    if (signal?.aborted) throw abortedError(undefined);
    const pacing = operationPacing(opts, signal, options.clock);
    let built: Services | undefined;
    const lazy = (): Services => {
      built ??= services(pacing);
      return built;
    };
    try {
      return await op(lazy, pacing.deadline);
    } catch (err) {
      if (signal?.aborted) throw abortedError(err);
      throw toSvcError(err);
    } finally {
      await built?.http.close();
    }
  }

  const ctx: OperationContext = { options, call };
  return {
    whoami: (opts = {}) =>
      call({ signal: opts.signal }, async (run) => {
        const { getMe } = await import("../api/get-me.js");
        return (await getMe(run().http)).me;
      }),
    listPacks: (opts = {}) =>
      call({ signal: opts.signal }, async (run) => {
        const { listPacks } = await import("../api/list-packs.js");
        return listPacks(run().http);
      }),
    listAssets: (opts = {}) =>
      call({ signal: opts.signal }, async (run) => {
        const { listAssets } = await import("../api/list-assets.js");
        return listAssets(run().http);
      }),
    downloadPack: (slug, opts) => downloadOne(ctx, "pack", slug, opts),
    downloadAsset: (slug, opts) => downloadOne(ctx, "asset", slug, opts),
    sync: (dir, opts) => syncDir(ctx, dir, opts),
    install: (opts) => installManifest(ctx, opts),
    verify: (dir, opts) => verifyDirectory(ctx, dir, opts),
  };
}

/** `apiKey`, trimmed and checked (a license key or a malformed key throws UsageError), or undefined. */
function apiKeyOf(options: ClientOptions): string | undefined {
  const apiKey = options.apiKey?.trim();
  if (apiKey === undefined || apiKey === "") return undefined;
  if (isLicenseKey(apiKey)) {
    throw new UsageError("apiKey is a license key (SVC_…), not an API key", {
      code: "license_key_as_api_key",
    });
  }
  assertSendableKey(apiKey, "apiKey");
  return apiKey;
}

/**
 * The network settings of a client: `proxy`, `caFile` (made absolute now) and `env` (default
 * `{}`), checked at once so that a bad value fails `createClient` rather than the first call.
 */
function networkOf(options: ClientOptions): NetworkSettings {
  const env = options.env ?? {};
  const proxy = options.proxy?.trim();
  const caFile = options.caFile?.trim() ? resolve(process.cwd(), options.caFile.trim()) : undefined;
  const network: NetworkSettings = {
    env,
    ...(proxy ? { proxy } : {}),
    ...(caFile ? { caFile } : {}),
  };
  proxySettings(network);
  tlsTrust(network);
  return network;
}

/** The error of an operation cancelled through its AbortSignal. */
function abortedError(cause: unknown): SvcError {
  return new SvcError(
    "the operation was aborted through its AbortSignal; partial data is kept and the next call resumes it",
    { code: "aborted", cause },
  );
}
