import { Hono } from "hono";
import { z } from "zod";
import type { ApiEnv } from "../types";
import { CompileRequest } from "./compile";
import { RunRequest } from "./run";

// Request bodies come from the same zod schemas the routes validate with, so
// the description cannot drift from what is enforced.
const schema = (s: z.ZodType) => z.toJSONSchema(s, { io: "input", unrepresentable: "any" });

const problem = {
  description: "Problem document (RFC 9457) with a stable `code`",
  content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
};
const jsonBody = (s: z.ZodType) => ({
  required: true,
  content: { "application/json": { schema: schema(s) } },
});
const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [String(s), problem]));

export const openapiDocument = {
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
      Diagnostic: {
        type: "object",
        required: ["code", "message", "line", "column"],
        properties: {
          code: { type: "string" },
          message: { type: "string" },
          line: { type: "integer" },
          column: { type: "integer" },
        },
      },
    },
  },
  security: [{ bearer: [] }],
  paths: {
    "/v1/limits": {
      get: { summary: "Limits in force", security: [], responses: { "200": { description: "Every limit" } } },
    },
    "/v1/openapi.json": {
      get: { summary: "This document", security: [], responses: { "200": { description: "OpenAPI 3.1" } } },
    },
    "/v1/compile": {
      post: {
        summary: "Stateless compile of a tool adapter (scope hooks:write)",
        requestBody: jsonBody(CompileRequest),
        responses: {
          "200": { description: "{ publicContract, compiledBytes, hash, stages }" },
          "422": {
            description: "Compile failed: problem document with `diagnostics[]`",
            content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
          },
          ...errors(400, 401, 403, 413, 415),
        },
      },
    },
    "/v1/run": {
      post: {
        summary: "Stateless playground run of one stage; never contacts an upstream (scope hooks:write)",
        requestBody: jsonBody(RunRequest),
        responses: {
          "200": { description: "The outcome whenever the hook ran, including `ok: false` hook failures" },
          "422": problem,
          ...errors(400, 401, 403, 413, 415),
        },
      },
    },
  },
} as const;

export const openapiRoutes = new Hono<ApiEnv>().get("/openapi.json", (c) => c.json(openapiDocument));
