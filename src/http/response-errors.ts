import { ApiError } from "../errors/api-error.js";
import { ResponseError } from "../errors/response-error.js";
import type { SvcError } from "../errors/svc-error.js";
import * as z from "../io/schema.js";
import { headerValue, type ResponseHeaders } from "./response-body.js";

/**
 * The spec's error object (`{error:{code,message,request_id}}`, spec "Errors"). It lives with
 * the HTTP client that reads every error answer; the resource schemas are in src/api/schemas.ts.
 */
const ErrorBodySchema = z.looseObject({
  error: z.looseObject({
    code: z.string().check(z.minLength(1)),
    message: z.string(),
    request_id: z.optional(z.string()),
  }),
});

/** What a body check needs of a response. */
interface Answer {
  status: number;
  headers: ResponseHeaders;
  requestId: string | null;
}

/**
 * The typed error of an error response whose (already redacted) body is `text`: ApiError for
 * the spec's error object, ApiError `internal_error`/`server_error` for other 5xx bodies,
 * ResponseError (exit 7) for anything else.
 */
export function errorFromBody(res: Answer, text: string): SvcError {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = ErrorBodySchema.safeParse(json);
  if (parsed.success) {
    return new ApiError({
      code: parsed.data.error.code,
      message: parsed.data.error.message,
      httpStatus: res.status,
      requestId: parsed.data.error.request_id ?? res.requestId,
    });
  }
  if (res.status >= 500) {
    return new ApiError({
      code: res.status === 500 ? "internal_error" : "server_error",
      message: `server error HTTP ${res.status} (${describeContent(res.headers, text)})`,
      httpStatus: res.status,
      requestId: res.requestId,
    });
  }
  return new ResponseError(
    `unexpected HTTP ${res.status} with ${describeContent(res.headers, text)} instead of the spec's error object`,
    { httpStatus: res.status, requestId: res.requestId },
  );
}

/**
 * Parses and validates a JSON body read as `text` (`truncated` when it passed its limit of
 * `limit` bytes); `scrub` removes secrets from excerpts. Throws ResponseError (exit 7) on a
 * body that is too large, not JSON, or of the wrong shape (the zod issues in `issues`).
 */
export function parseJsonBody<S extends z.core.$ZodType>(
  res: Answer,
  body: { text: string; truncated: boolean; limit: number },
  schema: S,
  scrub: (text: string) => string,
): z.output<S> {
  const where = { httpStatus: res.status, requestId: res.requestId };
  if (body.truncated) {
    throw new ResponseError(`response body larger than ${body.limit} bytes`, where);
  }
  let json: unknown;
  try {
    json = JSON.parse(body.text);
  } catch (err) {
    throw new ResponseError(
      `${body.text.trim() === "" ? "empty response body" : "response body is not valid JSON"} (HTTP ${res.status}, ${describeContent(res.headers, scrub(body.text))})`,
      { ...where, cause: err },
    );
  }
  const parsed = z.safeParse(schema, json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map(
      (i) => `${i.path.map(String).join(".") || "(root)"}: ${i.message}`,
    );
    throw new ResponseError(
      `response does not match the spec (${issues.slice(0, 3).join("; ")}${issues.length > 3 ? "; …" : ""})`,
      { ...where, issues },
    );
  }
  return parsed.data;
}

/** A short, sanitised description of a body for messages: its type and a one-line excerpt. */
export function describeContent(headers: ResponseHeaders, text: string): string {
  const type = headerValue(headers, "content-type")?.split(";")[0]?.trim() || "no content type";
  const excerpt = text
    .replace(/<[^>]*>/g, " ")
    .replace(/\p{Cc}+/gu, " ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 80);
  return excerpt ? `${type}: "${excerpt}"` : type;
}
