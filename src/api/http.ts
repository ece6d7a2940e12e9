/**
 * The HTTP client moved to `src/http/client.ts` (conventions "Layout"); this re-export keeps
 * imports of `api/http.js` working while other branches are merged. Import from `http/` in new code.
 */
export {
  describeContent,
  HttpClient,
  type HttpClientOptions,
  type HttpResponse,
  headerValue,
  MAX_REDIRECTS,
  type RequestSpec,
  type ResponseHeaders,
} from "../http/client.js";
