/**
 * Authentication and account checks for `/api/v1` routes, in this order
 * (spec, Authentication and Errors; Limits rule 2):
 *
 * 1. `blocked`: a key of a blocked account → 403 `Access denied`, no rate-limit headers;
 * 2. authentication: missing / malformed / unknown / revoked / expired key → 401,
 *    counted by the per-IP `auth` policy (rate-limit headers of `auth`; 429 once spent);
 * 3. account switches: API off (globally or for the account) → 403 `api_disabled`,
 *    then no purchase → 403 `not_eligible`; no rate-limit headers;
 * 4. limiter: the route's policy (`read` or `download`) keyed by the API key id;
 *    headers set on every later response (success, 403, 404, 429);
 * 5. scope: 403 `insufficient_scope`.
 */
import type { ServiceCore } from "./core.js";
import type { FixtureAccount, FixtureApiKey } from "./fixture-types.js";
import { type RequestContext, sendError, setHeaders } from "./http-util.js";
import { isWellFormedApiKey } from "./keys.js";
import { type LimitResult, rateLimitHeaders } from "./limiter.js";
import type { PolicyName } from "./service-types.js";

/** Scope a route needs: a named scope, any scope at all, or none. */
export type ScopeNeed = "downloads:read" | "catalog:read" | "any" | "none";

/** The authenticated caller. */
export interface Principal {
  key: FixtureApiKey;
  account: FixtureAccount;
}

/** Credential found on the request: the token, `"missing"`, or `"malformed"` (unusable Authorization header). */
export function extractApiKey(ctx: RequestContext): string | "missing" | "malformed" {
  const auth = ctx.req.headers.authorization;
  if (auth !== undefined && auth !== "") {
    const m = /^Bearer +(\S+) *$/i.exec(auth);
    return m?.[1] ?? "malformed";
  }
  const x = ctx.req.headers["x-api-key"];
  if (typeof x === "string" && x !== "") return x;
  return "missing";
}

/** Answer a failed authentication attempt (401 `code`, or 429 once the IP's `auth` budget is spent). */
export function failAuth(
  core: ServiceCore,
  ctx: RequestContext,
  code: string,
  message: string,
): void {
  const r = core.limiter.take("auth", ctx.ip);
  if (!r.allowed) {
    sendError(
      ctx,
      429,
      "rate_limited",
      `Too many failed authentication attempts from this address; retry in ${r.resetSeconds} s.`,
      rateLimitHeaders(r),
    );
    return;
  }
  sendError(ctx, 401, code, message, rateLimitHeaders(r));
}

/** Run the limiter for `policy` and `id` (with the `rateLimited` fault); false when a 429 was sent. */
export function applyLimiter(
  core: ServiceCore,
  ctx: RequestContext,
  policy: PolicyName,
  id: string,
): boolean {
  const fault = core.faults.faults.rateLimited;
  if (fault !== undefined && core.faults.take("rateLimited")) {
    const cfg = core.limiter.limits[policy];
    const r: LimitResult = {
      allowed: false,
      policy,
      quota: cfg.quota,
      windowSeconds: cfg.windowSeconds,
      remaining: 0,
      resetSeconds: Math.max(1, fault.retryAfter),
    };
    sendError(
      ctx,
      429,
      "rate_limited",
      "Rate limit exceeded (injected fault).",
      rateLimitHeaders(r, fault.retryAfter),
    );
    return false;
  }
  const r = core.limiter.take(policy, id);
  if (!r.allowed) {
    sendError(
      ctx,
      429,
      "rate_limited",
      `Rate limit "${policy}" exceeded; retry in ${r.resetSeconds} s.`,
      rateLimitHeaders(r),
    );
    return false;
  }
  setHeaders(ctx, rateLimitHeaders(r));
  return true;
}

/**
 * Authenticate an `/api/v1` request and apply the limiter and scope checks.
 * Returns the principal, or null when a response has already been sent.
 */
export function authenticate(
  core: ServiceCore,
  ctx: RequestContext,
  policy: PolicyName,
  scope: ScopeNeed,
): Principal | null {
  const token = extractApiKey(ctx);
  const key = token === "missing" || token === "malformed" ? undefined : core.state.key(token);
  const known = key !== undefined && key.key === token ? key : undefined;
  const account = known === undefined ? undefined : core.state.account(known.account);

  if (account?.blocked === true) {
    sendError(ctx, 403, "blocked", "Access denied");
    return null;
  }
  if (token === "missing") {
    failAuth(
      core,
      ctx,
      "missing_api_key",
      "No API key: send Authorization: Bearer <API_KEY> or X-API-Key.",
    );
    return null;
  }
  if (known === undefined || account === undefined || !isWellFormedApiKey(token)) {
    failAuth(core, ctx, "invalid_api_key", "The API key is malformed or unknown.");
    return null;
  }
  if (known.revoked === true) {
    failAuth(core, ctx, "revoked_api_key", "The API key was revoked.");
    return null;
  }
  if (core.state.isExpired(known, core.now())) {
    failAuth(core, ctx, "expired_api_key", "The API key has expired.");
    return null;
  }
  if (core.state.apiDisabled || account.apiDisabled === true) {
    sendError(ctx, 403, "api_disabled", "API access is unavailable for this account.");
    return null;
  }
  if (!core.state.isEligible(account)) {
    sendError(
      ctx,
      403,
      "not_eligible",
      "API access requires a purchase (a pack or lifetime access).",
    );
    return null;
  }
  known.last_used_at = new Date().toISOString();
  if (!applyLimiter(core, ctx, policy, known.id)) return null;
  const ok =
    scope === "none" || (scope === "any" ? known.scopes.length > 0 : known.scopes.includes(scope));
  if (!ok) {
    const need = scope === "any" ? "catalog:read or downloads:read" : scope;
    sendError(ctx, 403, "insufficient_scope", `This endpoint needs the ${need} scope.`);
    return null;
  }
  return { key: known, account };
}
