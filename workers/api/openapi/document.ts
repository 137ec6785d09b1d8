// The OpenAPI document `GET /v1/openapi.json` serves: every operation the api
// routes declare (collected from the app's routes by hono-openapi), plus the
// gateway's, with the parts they share.
import type { Context, Hono } from "hono";
import { type GenerateSpecOptions, generateSpecs } from "hono-openapi";
import type { JsonObject } from "../../../shared/json";
import type { ApiEnv } from "../types";
import { PROBLEM_REF } from "./describe";
import { GATEWAY_PATHS } from "./gateway-operations";

const PROBLEM_SCHEMA_REF = "#/components/schemas/Problem";

const PROBLEM_SCHEMA: JsonObject = {
  type: "object",
  required: ["type", "title", "status", "code"],
  properties: {
    type: { type: "string" },
    title: { type: "string" },
    status: { type: "integer" },
    code: { type: "string", description: "Stable snake_case error code" },
    detail: { type: "string" },
  },
};

const problemResponse = () => ({
  description: "Problem document (RFC 9457) with a stable `code`",
  content: { "application/problem+json": { schema: { $ref: PROBLEM_SCHEMA_REF } } },
});

const SECURITY_SCHEMES: JsonObject = {
  bearer: { type: "http", scheme: "bearer", description: "An API key (rr_…) or the platform key" },
  session: {
    type: "apiKey",
    in: "cookie",
    name: "rayrun_session",
    description: "A browser session (POST /v1/session); writes also send its csrfToken as x-csrf-token",
  },
  anthropicKey: {
    type: "apiKey",
    in: "header",
    name: "x-api-key",
    description: "Where Anthropic SDKs send their key; the LLM proxy's Anthropic endpoint reads it",
  },
};

async function build(app: Hono<ApiEnv>): Promise<JsonObject> {
  const generated = await generateSpecs(app, {
    documentation: {
      info: {
        title: "Rayrun Hooks API",
        version: "1",
        description:
          "The control-plane API (/v1), and the gateway's MCP endpoint and LLM proxy. Every refusal is a problem document with a stable `code`; `x-rayrun-auth` names the key scope an operation needs (browser users: viewer = hooks:read, editor = hooks:write, admin = admin; `x-rayrun-user-role` a role needed beside it).",
      },
      security: [{ bearer: [] }, { session: [] }],
    },
    // `/v1/openapi.json` looks like a static file to hono-openapi's default filter.
    excludeStaticFile: false,
    // Validators answer 400 invalid_request problems (middleware/validate.ts), not hono-openapi's
    // shape. Typed as an inline response, but copied as is: the shared reference works.
    defaultValidationErrorResponse: { $ref: PROBLEM_REF } as unknown as Exclude<
      GenerateSpecOptions["defaultValidationErrorResponse"],
      boolean
    >,
  });
  const document = JSON.parse(JSON.stringify(generated)) as JsonObject;
  const components = (document.components ?? {}) as JsonObject;
  return {
    ...document,
    paths: { ...(document.paths as JsonObject), ...GATEWAY_PATHS },
    components: {
      ...components,
      schemas: { ...(components.schemas as JsonObject | undefined), Problem: PROBLEM_SCHEMA },
      responses: { Problem: problemResponse() },
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}

/** Serves the document of `app`, built on the first request (once every route is mounted). */
export function openapiDocument(app: Hono<ApiEnv>) {
  let document: JsonObject | undefined;
  return async (c: Context<ApiEnv>) => c.json((document ??= await build(app)));
}
