/**
 * The shared service core both origins work on: state, limiter, faults, file
 * store, URL signer and settings.
 */
import type { FaultState } from "./faults.js";
import type { FileStore } from "./files.js";
import type { Limiter } from "./limiter.js";
import type { Signer } from "./signing.js";
import type { FileSpec, MockState } from "./state.js";

/** Runtime settings changeable with `set()`. */
export interface Settings {
  ifNoneMatch: boolean;
  /** Seconds. */
  signedUrlTtlSeconds: number;
  expiredUrlStatus: 403 | 410;
}

/** Everything the route handlers need. */
export interface ServiceCore {
  state: MockState;
  limiter: Limiter;
  faults: FaultState;
  files: FileStore;
  signer: Signer;
  settings: Settings;
  /** `http://127.0.0.1:PORT` of the API origin. */
  baseUrl: string;
  /** `http://127.0.0.1:PORT` of the CDN origin. */
  cdnUrl: string;
  /** The service's clock, ms since the epoch (`MockServiceOptions.now`). */
  now: () => number;
}

/** Absolute signed CDN URL of a file version: `/files/{kind}/{slug}/{edition}/{version}/{size}/{filename}?expires=…&sig=…`. */
export function signedFileUrl(core: ServiceCore, spec: FileSpec, filename: string): string {
  const path = `/files/${spec.kind}/${encodeURIComponent(spec.slug)}/${spec.edition}/${spec.version}/${spec.size}/${encodeURIComponent(filename)}`;
  return `${core.cdnUrl}${path}?${core.signer.sign(path, core.settings.signedUrlTtlSeconds, core.now())}`;
}
