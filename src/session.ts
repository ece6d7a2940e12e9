import { type ResolvedApiKey, withKeySource } from "./config/api-key.js";
import { describeSource, type ResolvedBaseUrl, resolveBaseUrl } from "./config/base-url.js";
import { findApiKey } from "./config/credentials.js";
import type { ConfigStore } from "./config/store.js";
import type { Context } from "./context.js";
import type { HintContext } from "./errors/codes.js";
import { UsageError } from "./errors/usage-error.js";
import type { HttpClient } from "./http/client.js";
import type { NetworkSettings } from "./http/dispatcher.js";
import { colourFor } from "./io/colour.js";
import { StderrLines } from "./io/live-lines.js";
import type { FileProgress } from "./io/progress.js";
import { createReporter, type Reporter } from "./io/reporter.js";
import { terminalText } from "./io/terminal-text.js";
import { Deadline } from "./pacing/deadline.js";
import { rateBytesPerSecond as parseRate } from "./pacing/units.js";
import type { RunPacingSettings, Services } from "./services.js";

/** The global options (cli-contract "Commands"), after parsing. */
export interface GlobalOptions {
  baseUrl?: string | undefined;
  json: boolean;
  quiet: boolean;
  /** False with `--no-progress`. */
  progress: boolean;
  verbose: boolean;
  /** False with `--no-color`. */
  color: boolean;
  /** `--max-wait`: seconds one operation may wait on 429s. */
  maxWait: number;
  /** `--proxy URL`: proxy for every request (cli-contract "Networks"). */
  proxy?: string | undefined;
  /** `--ca-file PATH`: extra trusted CA certificates (PEM). */
  caFile?: string | undefined;
  /** `--wait-lock`: seconds a command that writes a directory waits for another run's lock. */
  waitLock: number;
  /** `--max-duration`: seconds the run may take (src/pacing/deadline.ts). */
  maxDuration?: number | undefined;
  /** `--limit-rate`: bytes per second for every download, as typed (`500K`). */
  limitRate?: string | undefined;
  /** `--offline` (or `SVC_DL_OFFLINE=1`): no network connection at all. */
  offline?: boolean | undefined;
}

/** Defaults of {@link GlobalOptions}. */
export const DEFAULT_GLOBALS: GlobalOptions = {
  json: false,
  quiet: false,
  progress: true,
  verbose: false,
  color: true,
  maxWait: 300,
  waitLock: 0,
};

/**
 * The services of one run, built on first use so that `--help` and `--version` need no key,
 * no config file and no HTTP module: the reporter, the config store, the resolved base URL and
 * API key, and the HTTP client.
 */
export class Session {
  readonly ctx: Context;
  readonly globals: GlobalOptions;
  readonly reporter: Reporter;
  /** The run's writer of stderr lines: the reporter's and the progress bar's, coordinated. */
  readonly lines: StderrLines;
  #config: ConfigStore | undefined;
  #baseUrl: ResolvedBaseUrl | undefined;
  #apiKey: Promise<ResolvedApiKey> | undefined;
  readonly #services = new Map<string, Services>();
  /**
   * Put before each stderr line of a plain log (cli-contract "Plain logs carry time"); set by
   * `recordRun` (src/commands/shared/record-run.ts) for the length of a run when stderr is not a terminal.
   */
  linePrefix: (() => string) | undefined;
  /** What a hint may name for the command being run (set by `main`); undefined outside it. */
  hints: HintContext | undefined;
  /** Exit code a command sets for a partial failure (e.g. `verify` with changed files). */
  exitCode = 0;
  /** The run's `--max-duration` window, from the session's start; undefined without the flag. */
  readonly deadline: Deadline | undefined;

  constructor(ctx: Context, globals: GlobalOptions) {
    this.ctx = ctx;
    this.globals = globals;
    const colour = colourFor(ctx.io.stderrIsTTY, ctx.env, !globals.color);
    this.lines = new StderrLines(ctx.io.stderr);
    this.reporter = createReporter(ctx.io, {
      lines: this.lines,
      quiet: globals.quiet || globals.json,
      json: globals.json,
      verbose: globals.verbose,
      colour,
      prefix: () => this.linePrefix?.() ?? "",
    });
    this.deadline =
      globals.maxDuration === undefined
        ? undefined
        : new Deadline(globals.maxDuration, ctx.clock ?? { now: () => Date.now() });
  }

  /** True when progress bars may be drawn: stderr is a TTY and no `--quiet`/`--no-progress`/`--json`. */
  get interactiveProgress(): boolean {
    return (
      this.ctx.io.stderrIsTTY && this.globals.progress && !this.globals.quiet && !this.globals.json
    );
  }

  /** The config store, opened on first use. */
  async config(): Promise<ConfigStore> {
    if (!this.#config) {
      const { ConfigStore } = await import("./config/store.js");
      this.#config = new ConfigStore(this.ctx.env);
    }
    return this.#config;
  }

  /** The service address by precedence flag > env > config. Throws UsageError (exit 2). */
  async baseUrl(): Promise<ResolvedBaseUrl> {
    if (!this.#baseUrl) {
      const fromConfig =
        this.globals.baseUrl || this.ctx.env.SVC_BASE_URL
          ? undefined
          : (await this.config()).get("base-url");
      this.#baseUrl = resolveBaseUrl({
        flag: this.globals.baseUrl,
        env: this.ctx.env.SVC_BASE_URL,
        config: fromConfig,
      });
    }
    return this.#baseUrl;
  }

  /** The API key (config/credentials.ts `findApiKey`), resolved once per run; throws as it does. */
  async apiKey(): Promise<ResolvedApiKey> {
    this.#apiKey ??= this.baseUrl().then((b) =>
      findApiKey({ ...this.ctx, origin: b.url.origin, config: () => this.config() }),
    );
    return this.#apiKey;
  }

  /**
   * The HTTP client for the service. The API key is resolved now (so a missing key fails
   * before any request) unless `needsKey` is false (legacy downloads, keyless catalog calls);
   * `apiKey` overrides the configured key (`auth login` checks a new key before storing it).
   * One client per distinct key choice, so later options are never ignored. A keyless client
   * asked to authenticate throws SvcError `no_api_key` (exit 3). A refusal of the configured key
   * says where it came from (see `withKeySource`).
   */
  async http(opts: { needsKey?: boolean; apiKey?: string } = {}): Promise<HttpClient> {
    return (await this.services(opts)).http;
  }

  /**
   * The run's services (src/services.ts `createServices`): the HTTP client of {@link http}
   * (same options, same cache) with the run's clock and abort signal (SIGINT/SIGTERM, bound to
   * `--max-duration`), which commands pass down to every wait, lock and transfer.
   */
  async services(opts: { needsKey?: boolean; apiKey?: string } = {}): Promise<Services> {
    const resolved =
      opts.apiKey !== undefined || opts.needsKey === false ? undefined : await this.apiKey();
    const key = opts.apiKey ?? resolved?.value;
    const id = `${resolved?.source ?? "given"}:${key ?? ""}`;
    const cached = this.#services.get(id);
    if (cached) return cached;
    const { createServices } = await import("./services.js");
    const { url, source } = await this.baseUrl();
    const services = createServices({
      baseUrl: url,
      baseUrlSource: describeSource(source),
      apiKey: key,
      userAgent: `svc-dl/${this.ctx.version}`,
      network: await this.networkSettings(),
      offline: this.globals.offline === true || offlineFromEnv(this.ctx.env.SVC_DL_OFFLINE),
      ...(this.ctx.dispatcher ? { dispatcher: this.ctx.dispatcher } : {}),
      ...(await this.#pacing()),
      retry: { maxWaitSeconds: this.globals.maxWait },
      onExchange: (line) => this.reporter.verbose(line),
      onNotice: (line) => this.reporter.info(line),
      ...(resolved
        ? {
            explainApiError: (err) => withKeySource(err, { ...resolved, origin: url.origin }),
          }
        : {}),
    });
    this.#services.set(id, services);
    return services;
  }

  /**
   * The run's pacing settings (src/services.ts): with `--max-duration`, waits end at the
   * deadline and a transfer stops at it (also by a real-time timer, without an injected clock);
   * `--limit-rate` by precedence flag > `SVC_DL_LIMIT_RATE` > config `limit-rate`.
   */
  async #pacing(): Promise<RunPacingSettings> {
    const { deadline } = this;
    const rateText =
      this.globals.limitRate ??
      (this.ctx.env.SVC_DL_LIMIT_RATE?.trim() || undefined) ??
      (await this.config()).get("limit-rate");
    let rateBytesPerSecond: number | undefined;
    if (rateText !== undefined) {
      rateBytesPerSecond = parseRate(rateText);
      if (rateBytesPerSecond === undefined) {
        const from =
          this.globals.limitRate !== undefined
            ? "--limit-rate"
            : this.ctx.env.SVC_DL_LIMIT_RATE?.trim()
              ? "SVC_DL_LIMIT_RATE"
              : "config limit-rate";
        throw new UsageError(`${from}: ${JSON.stringify(rateText)} is not a download rate`, {
          code: "invalid_limit_rate",
        });
      }
    }
    return { rateBytesPerSecond, deadline, clock: this.ctx.clock, signal: this.ctx.signal };
  }

  /**
   * Proxy and CA settings by precedence flag > env > config (cli-contract "Configuration"):
   * `--proxy` > proxy env vars > config `proxy`; `--ca-file` > `SVC_CA_FILE` > config `ca-file`.
   */
  async networkSettings(): Promise<NetworkSettings> {
    const { env } = this.ctx;
    const proxyEnvSet = ["https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY"].some(
      (name) => (env[name] ?? "").trim() !== "",
    );
    const proxy =
      this.globals.proxy ?? (proxyEnvSet ? undefined : (await this.config()).get("proxy"));
    const caFile =
      this.globals.caFile ??
      (env.SVC_CA_FILE?.trim() ? env.SVC_CA_FILE : (await this.config()).get("ca-file"));
    return { env, ...(proxy ? { proxy } : {}), ...(caFile ? { caFile } : {}) };
  }

  /**
   * The progress output of this run (cli-contract "Streams and output"): a bar sized to the
   * terminal's columns when stderr is a TTY and progress is wanted, plain lines without a TTY,
   * nothing with `--quiet` or `--json`.
   */
  async progress(): Promise<FileProgress> {
    const { createProgress } = await import("./io/progress.js");
    const { io } = this.ctx;
    return createProgress({
      stderr: io.stderr,
      isTTY: io.stderrIsTTY,
      progress: this.globals.progress,
      quiet: this.globals.quiet || this.globals.json,
      columns: io.columns,
      prefix: () => this.linePrefix?.() ?? "",
      lines: this.lines,
    });
  }

  /** Writes one JSON document to stdout. */
  printJson(doc: unknown): void {
    this.ctx.io.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
  }

  /**
   * Writes human text to stdout: one line, or each of `lines`, escaped by `terminalText()`
   * (cli-contract "Untrusted text, paths and caches"; a newline inside a line is shown as
   * `\x0a`, so pass several lines as an array). JSON goes through {@link printJson}.
   */
  print(lines: string | readonly string[]): void {
    const all = typeof lines === "string" ? [lines] : lines;
    this.ctx.io.stdout.write(all.map((line) => `${terminalText(line)}\n`).join(""));
  }

  /** Closes the HTTP client's connections. */
  async close(): Promise<void> {
    await Promise.all([...this.#services.values()].map(({ http }) => http.close()));
  }
}

/** `SVC_DL_OFFLINE`: any value but empty, `0`, `false` or `no` turns offline runs on. */
function offlineFromEnv(value: string | undefined): boolean {
  return value !== undefined && !["", "0", "false", "no"].includes(value.trim().toLowerCase());
}
