// The one mapping from public error codes to HTTP answers (RFC 9457).
// Domain code returns tagged results; route handlers pick a code here.
import { LIMITS } from "../limits";
const PROBLEMS = {
  invalid_request: { status: 400, title: "The request is not valid" },
  invalid_json: { status: 400, title: "The body is not valid JSON" },
  json_too_deep: { status: 400, title: "The JSON nests deeper than the limit" },
  unauthorized: { status: 401, title: "A valid API key is required" },
  sign_in_link_invalid: { status: 401, title: "The sign-in link is unknown, used or expired" },
  forbidden: { status: 403, title: "The API key lacks the required scope" },
  csrf_failed: { status: 403, title: "The CSRF token is missing or wrong" },
  forbidden_origin: { status: 403, title: "The Host or Origin is not allowed" },
  not_found: { status: 404, title: "Not found" },
  workspace_not_found: { status: 404, title: "The workspace does not exist" },
  method_not_allowed: { status: 405, title: "Method not allowed" },
  conflict: { status: 409, title: "Conflict" },
  not_tested: { status: 409, title: "The version has no successful test run" },
  incompatible_revision: { status: 409, title: "The revision does not match the tool's current definition" },
  precondition_failed: { status: 412, title: "The resource has changed" },
  payload_too_large: { status: 413, title: "The body is too large" },
  allowance_exceeded: { status: 413, title: "A workspace byte allowance is exhausted" },
  unsupported_media_type: { status: 415, title: "Send application/json" },
  compile_failed: { status: 422, title: "The hook does not compile" },
  invalid_file_path: { status: 422, title: "Not a workspace file path" },
  // 4xx, never 5xx: the official LLM SDKs retry 5xx, and a failed hook must not become a resend.
  request_hook_failed: { status: 422, title: "The request hook failed; nothing was sent to the provider" },
  provider_not_configured: { status: 424, title: "The workspace has no usable provider for this endpoint" },
  precondition_required: { status: 428, title: "If-Match is required" },
  rate_limited: { status: 429, title: "Quota exhausted" },
  internal_error: { status: 500, title: "Internal error" },
  upstream_unavailable: { status: 502, title: "The upstream MCP server did not answer usably" },
  provider_timeout: { status: 504, title: "The LLM provider did not answer in time" },
  provider_unreachable: { status: 502, title: "The LLM provider could not be reached" },
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemCode = keyof typeof PROBLEMS;

export interface Problem {
  code: ProblemCode;
  detail?: string;
  /** Extension members (e.g. `diagnostics`, `errors`), merged into the body. */
  extensions?: Record<string, unknown>;
  headers?: Record<string, string>;
}

export const problemStatus = (code: ProblemCode): number => PROBLEMS[code].status;

/** The problem for a JSON body nested deeper than LIMITS.jsonDepth. */
export const TOO_DEEP = {
  code: "json_too_deep",
  detail: `The body nests arrays and objects more than ${LIMITS.jsonDepth} levels deep.`,
  extensions: { limit: LIMITS.jsonDepth },
} as const satisfies Problem;

export function problemResponse(problem: Problem): Response {
  const { status, title } = PROBLEMS[problem.code];
  const body = {
    ...problem.extensions,
    type: `https://rayrun.dev/problems/${problem.code.replaceAll("_", "-")}`,
    title,
    status,
    code: problem.code,
    ...(problem.detail === undefined ? {} : { detail: problem.detail }),
  };
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/problem+json", ...problem.headers },
  });
}

/** Thrown at the HTTP edge only (middleware, validators); the app's onError renders it. */
export class ProblemException extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail ?? problem.code);
    this.name = "ProblemException";
  }
}
