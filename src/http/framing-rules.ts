/**
 * Most interim (1xx) answers skipped before a final answer, on either transport (the body fast
 * path, src/http/fast-body/framing.ts, and undici, src/http/dispatch-request.ts): RFC 9110
 * §15.2 says a client skips them; one more than this fails the request, so that a server
 * cannot hold a request with an endless stream of them.
 */
export const MAX_INTERIM_ANSWERS = 8;

/**
 * The error of an answer that breaks HTTP/1.1 framing (RFC 9112 §5.2, §6.3) as svc-dl sees it
 * itself: an `HPE_` code as llhttp's, so src/http/classify.ts makes it `bad_framing` (exit 7),
 * and `definite`, so src/http/retry.ts does not retry it (the same server answers the same way).
 */
export function framingError(why: string): Error {
  return Object.assign(new Error(why), {
    code: "HPE_SVC_DL_FRAMING",
    definite: true,
  });
}
