import type { SecureContext } from "node:tls";
import { UsageError } from "../errors/usage-error.js";
import { readFileNoBlock } from "../io/regular-file.js";

/**
 * The certificate authorities a run trusts (cli-contract "Networks", "Configuration": the CA
 * file ADDS to Node's roots), and the one TLS SecureContext built from them. Every TLS
 * connection of svc-dl takes its context from here: undici's (src/http/dispatcher.ts), the body
 * fast path's (src/http/fast-body/transport.ts) and doctor's probes.
 */
export interface TlsTrust {
  /**
   * PEM texts trusted besides Node's bundled roots (`NODE_EXTRA_CA_CERTS` of the run's env when
   * the process did not load it itself, then the CA file), or undefined when Node's default
   * trust applies unchanged.
   */
  readonly extraPem: readonly string[] | undefined;
  /**
   * The SecureContext of every TLS connection: undefined for Node's default trust (each
   * connection then gets Node's default context, which costs ~0.2 ms and follows what the host
   * process sets as its default CAs); otherwise one context per distinct CA list in the
   * process, built on the first call (loads `node:tls`; ~30 ms: ~145 PEM certificates parsed).
   */
  secureContext(): SecureContext | undefined;
}

/** Contexts by their extra PEM list: a handful at most (a CA file per client of a host). */
const contexts = new Map<string, SecureContext>();
const MAX_CONTEXTS = 8;
/** Most bytes of a CA file read: 16 MiB (a full system bundle is about 0.2 MiB). */
const MAX_PEM_BYTES = 16 << 20;

/**
 * The trust of a run from its settings: Node's bundled roots, `NODE_EXTRA_CA_CERTS` of
 * `settings.env` and the CA file (`--ca-file`, `SVC_CA_FILE`, config `ca-file`, the library's
 * `caFile`). Node reads `NODE_EXTRA_CA_CERTS` only at process start, so one given in the env of
 * a library call (or an in-process run) is read here; the process's own one is already in
 * Node's defaults. Reads the files now (`node:tls` is not loaded until a context is needed),
 * without blocking (src/io/regular-file.ts: a FIFO or device there is refused, never waited on).
 * Throws UsageError (exit 2, `invalid_ca_file`) when the CA file cannot be read, is not a
 * regular file, or holds no PEM.
 */
export function tlsTrust(settings: {
  caFile?: string | undefined;
  env: Readonly<Record<string, string | undefined>>;
}): TlsTrust {
  const extraPem = extraCas(settings);
  if (extraPem === undefined) return { extraPem, secureContext: () => undefined };
  const key = extraPem.join("\n");
  return { extraPem, secureContext: () => contextFor(key, extraPem) };
}

function extraCas(settings: Parameters<typeof tlsTrust>[0]): string[] | undefined {
  const caFile = settings.caFile?.trim();
  const extra = settings.env.NODE_EXTRA_CA_CERTS?.trim();
  // The process loaded its own NODE_EXTRA_CA_CERTS at start: Node's defaults (which may also be
  // the system's store) already hold it, so only a different one needs an explicit list.
  const loadedByNode = extra !== undefined && extra === process.env.NODE_EXTRA_CA_CERTS?.trim();
  if (!caFile && (!extra || loadedByNode)) return undefined;
  const cas: string[] = [];
  if (extra) {
    try {
      cas.push(readFileNoBlock(extra, { follow: true, maxBytes: MAX_PEM_BYTES }).toString("utf8"));
    } catch {
      // Node itself warns about an unreadable NODE_EXTRA_CA_CERTS; the CA file still applies.
    }
  }
  if (!caFile) return cas;
  let pem: string;
  try {
    pem = readFileNoBlock(caFile, { follow: true, maxBytes: MAX_PEM_BYTES }).toString("utf8");
  } catch (err) {
    throw new UsageError(`cannot read the CA file ${caFile}: ${(err as Error).message}`, {
      code: "invalid_ca_file",
    });
  }
  if (!pem.includes("-----BEGIN CERTIFICATE-----")) {
    throw new UsageError(`the CA file ${caFile} holds no PEM certificate`, {
      code: "invalid_ca_file",
    });
  }
  cas.push(pem);
  return cas;
}

/**
 * The context trusting Node's bundled roots plus `extraPem`. `ca` replaces Node's roots, so
 * they are listed first: the documented way to add to them (node:tls `createSecureContext`).
 */
function contextFor(key: string, extraPem: readonly string[]): SecureContext {
  const cached = contexts.get(key);
  if (cached) return cached;
  const tls = process.getBuiltinModule("node:tls");
  const context = tls.createSecureContext({ ca: [...tls.rootCertificates, ...extraPem] });
  if (contexts.size >= MAX_CONTEXTS) contexts.delete(contexts.keys().next().value as string);
  contexts.set(key, context);
  return context;
}
