import { Hono } from "hono";
import { z } from "zod";
import type { Scope } from "../../../shared/auth/principal";
import type { ApiEnv } from "../types";
import { PutAccessProfileRequest, PutToolGatewayRequest } from "./access-profiles";
import { CompileRequest } from "./compile";
import { PutConfigBody } from "./config";
import { DeployRequest, RollbackRequest } from "./deployments";
import { FileTestRequest } from "./file-test";
import { RestoreBody, SaveDraftBody } from "./hooks";
import { PrepareRequest } from "./llm";
import { RunRequest } from "./run";
import { TestRequest } from "./tool-deployments";
import { PutSecretRequest } from "./secrets";
import { CreateServiceRequest, UpdateServiceRequest } from "./services";
import { AcceptReviewRequest } from "./tools";
import { CreateKeyRequest, CreateWorkspaceRequest } from "./workspaces";

// Request bodies come from the zod schemas the routes validate with, so the
// description cannot drift from what is enforced; a test checks that every
// mounted route is described here.
interface Operation {
  method: "get" | "post" | "put" | "patch" | "delete";
  path: string;
  summary: string;
  /** Scope required; "public" needs no key, "platform" the bootstrap key. */
  auth: Scope | "public" | "platform";
  body?: z.ZodType;
  /** Success status → description. */
  ok?: Record<string, string>;
  /** Problem statuses besides the ones every authenticated route can answer. */
  problems?: number[];
  etag?: "returns" | "requires";
}

const WS = "/v1/workspaces/{ws}";
const HOOK = `${WS}/tools/{tool}/hook`;
/** `{path}` is one URL-encoded segment: `lib%2Frequest-policy.ts`. */
const FILE = `${WS}/files/{path}`;
const paged = "Page `{ items, nextCursor }` (`?limit=&cursor=`)";

/** The routes every lifecycle target has (tool hooks and workspace files), under its base path. */
function lifecycleOperations(base: string): Operation[] {
  return [
    {
      method: "get",
      path: base,
      summary: "Draft (source, config, version) and deployments",
      auth: "hooks:read",
      etag: "returns",
      problems: [404],
    },
    {
      method: "put",
      path: `${base}/draft`,
      summary: "Save the draft (identical saves are no-ops)",
      auth: "hooks:write",
      body: SaveDraftBody,
      etag: "requires",
      problems: [404, 409, 412, 428, 429],
    },
    {
      method: "get",
      path: `${base}/versions`,
      summary: "Draft history, newest first",
      auth: "hooks:read",
      ok: { "200": paged },
    },
    {
      method: "get",
      path: `${base}/versions/{n}`,
      summary: "One version with source and config",
      auth: "hooks:read",
      problems: [404],
    },
    {
      method: "get",
      path: `${base}/versions/{n}/diff`,
      summary: "Unified diff of a version against its predecessor",
      auth: "hooks:read",
      problems: [404],
    },
    {
      method: "post",
      path: `${base}/versions/{n}/restore`,
      summary: "Copy a version into a new draft version",
      auth: "hooks:write",
      body: RestoreBody,
      etag: "requires",
      problems: [404, 409, 412, 428, 429],
    },
    {
      method: "get",
      path: `${base}/export`,
      summary: "All versions as one JSON document",
      auth: "hooks:read",
    },
    {
      method: "post",
      path: `${base}/compile`,
      summary: "Compile the draft",
      auth: "hooks:write",
      problems: [404, 409, 422, 429],
    },
    {
      method: "post",
      path: `${base}/deployments`,
      summary: "Compile, require a test, create a revision and move the pointer",
      auth: "hooks:write",
      body: DeployRequest,
      ok: { "201": "A new revision", "200": "An identical revision reused" },
      problems: [404, 409, 413, 422, 429],
    },
    {
      method: "get",
      path: `${base}/revisions`,
      summary: "Deployment revisions, newest first",
      auth: "hooks:read",
      ok: { "200": paged },
    },
    {
      method: "post",
      path: `${base}/rollback`,
      summary: "Move a pointer to an earlier compatible revision",
      auth: "hooks:write",
      body: RollbackRequest,
      problems: [404, 409, 413],
    },
    {
      method: "delete",
      path: `${base}/shadow`,
      summary: "Drop the shadow pointer",
      auth: "hooks:write",
      problems: [404],
    },
    {
      method: "get",
      path: `${base}/logs`,
      summary: "This hook's run records (?format=json|ndjson, filters, cursor)",
      auth: "hooks:read",
      ok: { "200": paged },
      problems: [400, 404],
    },
    {
      method: "post",
      path: `${base}/reset`,
      summary: "Remove draft, versions and revisions; keep a reset event",
      auth: "hooks:write",
      problems: [404],
    },
  ];
}

export const OPERATIONS: Operation[] = [
  { method: "get", path: "/v1/limits", summary: "Every limit in force", auth: "public" },
  { method: "get", path: "/v1/openapi.json", summary: "This document", auth: "public" },
  {
    method: "post",
    path: "/v1/compile",
    summary: "Stateless compile of a tool adapter",
    auth: "hooks:write",
    body: CompileRequest,
    problems: [422, 429],
  },
  {
    method: "post",
    path: "/v1/run",
    summary: "Stateless playground run of one stage; never contacts an upstream",
    auth: "hooks:write",
    body: RunRequest,
    ok: { "200": "The outcome whenever the hook ran, including `ok: false` hook failures" },
    problems: [422, 429],
  },

  {
    method: "post",
    path: "/v1/workspaces",
    summary: "Create a workspace",
    auth: "platform",
    body: CreateWorkspaceRequest,
    ok: { "201": "The workspace" },
  },
  { method: "get", path: WS, summary: "One workspace", auth: "hooks:read", problems: [404] },
  {
    method: "post",
    path: `${WS}/keys`,
    summary: "Mint an API key (the secret is shown once)",
    auth: "admin",
    body: CreateKeyRequest,
    ok: { "201": "The key with its secret" },
    problems: [404],
  },
  {
    method: "get",
    path: `${WS}/keys`,
    summary: "API keys, without secrets",
    auth: "admin",
    ok: { "200": paged },
  },
  { method: "delete", path: `${WS}/keys/{id}`, summary: "Revoke a key", auth: "admin", problems: [404] },

  {
    method: "get",
    path: `${WS}/config`,
    summary: "Workspace config (defaults filled) with its ETag",
    auth: "hooks:read",
    etag: "returns",
    problems: [404],
  },
  {
    method: "put",
    path: `${WS}/config`,
    summary: "Replace the workspace config",
    auth: "admin",
    body: PutConfigBody,
    etag: "requires",
    problems: [404, 412, 428],
  },
  {
    method: "get",
    path: `${WS}/hooks/logs`,
    summary: "Every hook's run records (?format=json|ndjson, filters, cursor)",
    auth: "hooks:read",
    ok: { "200": paged },
    problems: [400, 404],
  },

  {
    method: "post",
    path: `${WS}/llm/prepare`,
    summary: "Run the LLM path's hooks on a neutral request and return the request to send",
    auth: "tools:call",
    body: PrepareRequest,
    ok: { "200": "`{ requestId, request, hook: { ran, revisionId, path, function, durationMs } }`" },
    problems: [404, 422],
  },

  {
    method: "get",
    path: `${WS}/access-profiles`,
    summary: "Access profiles (default is open until written)",
    auth: "hooks:read",
    problems: [404],
  },
  {
    method: "get",
    path: `${WS}/access-profiles/{name}`,
    summary: "One access profile",
    auth: "hooks:read",
    problems: [400, 404],
  },
  {
    method: "put",
    path: `${WS}/access-profiles/{name}`,
    summary: "Create or replace an access profile",
    auth: "admin",
    body: PutAccessProfileRequest,
    problems: [404],
  },
  {
    method: "get",
    path: `${WS}/secrets`,
    summary: "Secret names (values are never returned)",
    auth: "admin",
    problems: [404],
  },
  {
    method: "put",
    path: `${WS}/secrets/{name}`,
    summary: "Write a secret (write-only, stored encrypted)",
    auth: "admin",
    body: PutSecretRequest,
    ok: { "204": "Stored" },
    problems: [404],
  },
  {
    method: "delete",
    path: `${WS}/secrets/{name}`,
    summary: "Delete a secret",
    auth: "admin",
    ok: { "204": "Deleted" },
    problems: [400, 404],
  },
  {
    method: "get",
    path: `${WS}/approvals`,
    summary: "Approvals (?status=pending|approved|denied|used|expired)",
    auth: "hooks:read",
    ok: { "200": paged },
    problems: [400, 404],
  },
  {
    method: "get",
    path: `${WS}/approvals/{id}`,
    summary: "One approval",
    auth: "hooks:read",
    problems: [404],
  },
  {
    method: "post",
    path: `${WS}/approvals/{id}/approve`,
    summary: "Approve a pending one-call approval",
    auth: "hooks:write",
    problems: [404, 409],
  },
  {
    method: "post",
    path: `${WS}/approvals/{id}/deny`,
    summary: "Deny a pending one-call approval",
    auth: "hooks:write",
    problems: [404, 409],
  },

  {
    method: "post",
    path: `${WS}/services`,
    summary: "Register an upstream MCP server",
    auth: "hooks:write",
    body: CreateServiceRequest,
    ok: { "201": "The service" },
    problems: [404, 409],
  },
  {
    method: "get",
    path: `${WS}/services`,
    summary: "Services (`?deleted=true` for deleted ones)",
    auth: "hooks:read",
    ok: { "200": paged },
  },
  {
    method: "get",
    path: `${WS}/services/{svc}`,
    summary: "One service",
    auth: "hooks:read",
    problems: [404],
  },
  {
    method: "patch",
    path: `${WS}/services/{svc}`,
    summary: "Change a service's timeout, payload capture or authorization secret",
    auth: "hooks:write",
    body: UpdateServiceRequest,
    problems: [404, 409],
  },
  {
    method: "post",
    path: `${WS}/services/{svc}/refresh`,
    summary: "Index the upstream's tools/list",
    auth: "hooks:write",
    problems: [404, 409, 502],
  },
  {
    method: "delete",
    path: `${WS}/services/{svc}`,
    summary: "Delete a service (409 while hook history exists)",
    auth: "hooks:write",
    problems: [404, 409],
  },
  {
    method: "get",
    path: `${WS}/services/{svc}/history`,
    summary: "History-only view of a service's tools",
    auth: "hooks:read",
    problems: [404],
  },
  {
    method: "get",
    path: `${WS}/tools`,
    summary: "Indexed tools with upstream schemas, definition hash, review state",
    auth: "hooks:read",
    ok: { "200": paged },
  },
  {
    method: "get",
    path: `${WS}/tools/{tool}`,
    summary: "One indexed tool",
    auth: "hooks:read",
    problems: [404],
  },
  {
    method: "get",
    path: `${WS}/tools/{tool}/gateway`,
    summary: "A tool's risk and response projection",
    auth: "hooks:read",
    problems: [404],
  },
  {
    method: "put",
    path: `${WS}/tools/{tool}/gateway`,
    summary: "Set a tool's risk and response projection",
    auth: "admin",
    body: PutToolGatewayRequest,
    problems: [404],
  },
  {
    method: "post",
    path: `${WS}/tools/{tool}/review/accept`,
    summary: "Accept a changed upstream definition",
    auth: "hooks:write",
    body: AcceptReviewRequest,
    problems: [404, 409],
  },

  ...lifecycleOperations(HOOK),
  {
    method: "post",
    path: `${HOOK}/test`,
    summary: "Test console: run a stage with arguments or a mock result; recorded with the version",
    auth: "hooks:write",
    body: TestRequest,
    problems: [404, 409, 422, 429],
  },
  {
    method: "get",
    path: `${HOOK}/types`,
    summary: "Generated TypeScript declarations (application/typescript)",
    auth: "hooks:read",
    problems: [404],
  },

  {
    method: "get",
    path: `${WS}/files`,
    summary: "Workspace files (lib/…, plugins/…) with draft version and deployments (`?kind=lib|plugin`)",
    auth: "hooks:read",
    ok: { "200": paged },
    problems: [400, 404],
  },
  ...lifecycleOperations(FILE).map((op) => ({ ...op, problems: [...(op.problems ?? []), 422] })),
  {
    method: "post",
    path: `${FILE}/test`,
    summary:
      "Test console: run an exported function (lib) or hook (plugin) with `input`; recorded with the version",
    auth: "hooks:write",
    body: FileTestRequest,
    problems: [404, 409, 422, 429],
  },
];

const problem = {
  description: "Problem document (RFC 9457) with a stable `code`",
  content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
};

function operation(op: Operation) {
  const authProblems = op.auth === "public" ? [] : [401, 403];
  const bodyProblems = op.body ? [400, 413, 415] : [];
  const statuses = [...new Set([...authProblems, ...bodyProblems, ...(op.problems ?? [])])].toSorted(
    (a, b) => a - b,
  );
  const parameters = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
    name: m[1],
    in: "path",
    required: true,
    ...(m[1] === "path"
      ? { description: "Workspace file path as one URL-encoded segment: lib%2Frequest-policy.ts" }
      : {}),
    schema: { type: "string" },
  }));
  if (op.etag === "requires")
    parameters.push({ name: "If-Match", in: "header", required: true, schema: { type: "string" } });
  return {
    summary: op.summary,
    ...(op.auth === "public" ? { security: [] } : { "x-rayrun-auth": op.auth }),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(op.body
      ? {
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: z.toJSONSchema(op.body, { io: "input", unrepresentable: "any" }),
              },
            },
          },
        }
      : {}),
    responses: {
      ...Object.fromEntries(
        Object.entries(op.ok ?? { "200": "OK" }).map(([s, d]) => [s, { description: d }]),
      ),
      ...Object.fromEntries(statuses.map((s) => [String(s), problem])),
    },
  };
}

function buildDocument() {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) (paths[op.path] ??= {})[op.method] = operation(op);
  return {
    openapi: "3.1.0",
    info: { title: "Rayrun Hooks API", version: "1" },
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      schemas: {
        Problem: {
          type: "object",
          required: ["type", "title", "status", "code"],
          properties: {
            type: { type: "string" },
            title: { type: "string" },
            status: { type: "integer" },
            code: { type: "string", description: "Stable snake_case error code" },
            detail: { type: "string" },
          },
        },
      },
    },
    security: [{ bearer: [] }],
    paths,
  };
}

let document: ReturnType<typeof buildDocument> | undefined;

export const openapiRoutes = new Hono<ApiEnv>().get("/openapi.json", (c) =>
  c.json((document ??= buildDocument())),
);
