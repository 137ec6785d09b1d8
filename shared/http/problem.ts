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
  approval_required: { status: 422, title: "A host call of the request hook needs an approval" },
  provider_not_configured: { status: 424, title: "The workspace has no usable provider for this endpoint" },
  // 4xx for the same reason: nothing was checked, so nothing may be resent blindly either.
  workspace_unavailable: { status: 424, title: "The workspace's current state could not be confirmed" },
  precondition_required: { status: 428, title: "If-Match is required" },
  rate_limited: { status: 429, title: "Quota exhausted" },
  internal_error: { status: 500, title: "Internal error" },
  upstream_unavailable: { status: 502, title: "The upstream MCP server did not answer usably" },
  provider_timeout: { status: 504, title: "The LLM provider did not answer in time" },
  provider_unreachable: { status: 502, title: "The LLM provider could not be reached" },
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemCode = keyof typeof PROBLEMS;

/** What a problem means and what the client should do about it: a row of the error catalogue. */
export interface ProblemGuide {
  means: string;
  action: string;
}

/**
 * The error catalogue's row for every code (never served: `npm run docs:errors`
 * writes docs/errors.md from it). Typed by ProblemCode, so a new code does not
 * compile until it says what it means and what to do.
 */
export const PROBLEM_GUIDE = {
  invalid_request: {
    means: "The request is not valid; the `errors` member names each field (`path`) and what is wrong",
    action: "Fix the fields `errors` names and send the request again.",
  },
  invalid_json: {
    means: "The body is not valid JSON",
    action: "Send a well-formed JSON body.",
  },
  json_too_deep: {
    means: "The body nests arrays and objects deeper than `jsonDepth` (64) levels (`limit`)",
    action: "Flatten the body to at most `limit` levels.",
  },
  unauthorized: {
    means:
      "No key or session, an unknown or revoked key, an ended session, or a Cloudflare Access token that fails a check",
    action: "Send `Authorization: Bearer <key>` with a live key, or sign in to the console again.",
  },
  sign_in_link_invalid: {
    means:
      "`POST /v1/session`: the sign-in link is unknown, already used or expired (a link works once, for 24 hours)",
    action: "Ask an admin for a new link (`POST /v1/workspaces/{ws}/users/{userId}/sign-in-links`).",
  },
  forbidden: {
    means:
      "The key or the user's role lacks the scope the route needs, or the key or console session belongs to another workspace (the same answer whether the named workspace exists or not)",
    action:
      "Use a key of this workspace with the scope (`hooks:read`, `hooks:write`, `tools:call`, `admin`), sign in to that workspace, or ask an admin for a role that has it.",
  },
  csrf_failed: {
    means: "A write with the session cookie lacks the session's `x-csrf-token`, or sends a wrong one",
    action: "Send the `csrfToken` from `GET /v1/session` as `x-csrf-token`, or use an API key.",
  },
  forbidden_origin: {
    means: "`/mcp`: the Host or Origin is not in the gateway's `MCP_ALLOWED_HOSTS`",
    action: "Call the gateway under a host name it allows, from a page of an allowed origin.",
  },
  not_found: {
    means:
      "The route, or a resource in the workspace (service, tool, version, revision, key, user, secret, approval), does not exist",
    action: "Check the path and the ids in it; list the resources to find the right one.",
  },
  workspace_unavailable: {
    means:
      "The gateway holds no current lease on the workspace's deployments and keys, and the workspace's home did not answer; nothing ran and nothing was sent",
    action: "Try again shortly; it clears as soon as the workspace's home answers.",
  },
  workspace_not_found: {
    means:
      "The workspace in the path does not exist; only the platform key is told so, other callers get `forbidden`",
    action: "Check the workspace id in the path.",
  },
  method_not_allowed: {
    means: "The route exists, for other methods (`Allow` lists them)",
    action: "Use one of the methods in `Allow`.",
  },
  conflict: {
    means:
      "The change conflicts with the current state, e.g. a deleted service, a name already taken, an approval already decided",
    action: "Read `detail`: it says what is in the way and how to clear it.",
  },
  not_tested: {
    means: "The version has no successful test run, so it cannot be deployed (`version`)",
    action:
      "Run the version until a run passes (`rayrun hooks test … --version N`, `rayrun files test … --version N`, or Run test on the console's Test tab; `detail` names the command), then deploy it.",
  },
  incompatible_revision: {
    means:
      "The revision was compiled against an earlier upstream definition of the tool, so it cannot serve it",
    action:
      "Deploy a version (it compiles against the current definition) instead of rolling back to this revision.",
  },
  precondition_failed: {
    means: "`If-Match` names an older ETag: someone saved in between",
    action: "Read the current state (its ETag), merge your change into it and send it with the new ETag.",
  },
  payload_too_large: {
    means:
      "The body is over `requestBodyBytes`, or a source or config is over its own limit (`GET /v1/limits`); `limit` and, when known, `size` say by how much",
    action: "Send less: split the file or shrink the config.",
  },
  allowance_exceeded: {
    means: "A workspace byte allowance is exhausted: deployed code or draft history",
    action: "Drop a shadow deployment or reset hooks you no longer need, then try again.",
  },
  unsupported_media_type: {
    means: "The body is not sent as `application/json`",
    action: "Send `Content-Type: application/json`.",
  },
  compile_failed: {
    means: "The hook does not compile; `diagnostics[]` gives each error with its line and column",
    action: "Fix the errors `diagnostics` lists and save again.",
  },
  invalid_file_path: {
    means: "Not a workspace file path (`lib/…` or `plugins/…`, ending in `.ts` or `.js`)",
    action: "Use a path of that form, URL-encoded in the route (`lib%2Fx.ts`).",
  },
  request_hook_failed: {
    means: "The request hook failed, so nothing was sent to the provider; `hookCode` says why (see below)",
    action: "Fix the hook or its config as `hookCode` says; sending the request again runs the hook again.",
  },
  approval_required: {
    means:
      "The request hook made a host call its loop's policy marks for approval; it did not run, and `approval` names it",
    action:
      "An approver approves `approval.id`; then send the same request again with `x-rayrun-approval-id: <id>`.",
  },
  provider_not_configured: {
    means:
      "The workspace config names no provider for this endpoint, or the secret holding its key is not set",
    action: "An admin sets `providers` in the workspace config and the secret it names.",
  },
  precondition_required: {
    means: "The write needs `If-Match` with the current ETag",
    action: "Read the resource, then send its ETag as `If-Match`.",
  },
  rate_limited: {
    means: "A quota or request rate is exhausted; `Retry-After` says when to try again",
    action: "Wait for `Retry-After` seconds, or ask an admin for a higher rate tier.",
  },
  internal_error: {
    means: "Something failed on our side; the detail is in the Worker's log, not in the answer",
    action:
      "Try again; if it persists, report the time, the route and (on `/llm`) the `x-rayrun-request-id`.",
  },
  upstream_unavailable: {
    means: "The upstream MCP server could not be reached or did not answer usably",
    action: "Check the service's URL and the upstream's health, then try again.",
  },
  provider_timeout: {
    means: "The provider sent no response headers within `firstByteMs`",
    action: "Try again, or raise `providers.<name>.timeouts.firstByteMs` in the workspace config.",
  },
  provider_unreachable: {
    means: "The LLM provider could not be reached (connection refused, DNS, TLS)",
    action: "Check the provider's `baseUrl` in the workspace config and the provider's status.",
  },
} as const satisfies Record<ProblemCode, ProblemGuide>;

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
