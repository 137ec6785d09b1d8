import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import { validator } from "hono/validator";
import type { z } from "zod";
import { bodyTooLarge, declaredBytes } from "../../../shared/http/body-limit";
import { ProblemException, TOO_DEEP } from "../../../shared/http/problem";
import { nestsDeeperThan } from "../../../shared/json";
import { isJsonMediaType, SEND_JSON } from "../../../shared/http/media-type";
import { LIMITS } from "../../../shared/limits";
import { problems, withSchema, withSpec } from "../openapi/describe";
import type { ApiEnv } from "../types";
import { parsedOrProblem } from "./validate";

/** Refuses bodies over the API's limit before anything reads them. */
export const limitBody = (maxSize: number = LIMITS.requestBodyBytes) =>
  withSpec(
    bodyLimit({
      maxSize,
      onError: (c) => {
        throw new ProblemException(bodyTooLarge(maxSize, declaredBytes(c.req.raw.headers)));
      },
    }),
    { responses: problems(413) },
  );

const BODY_SHAPE = "The body does not match the expected shape.";

function requireJsonMediaType(contentType: string | null | undefined): void {
  if (!isJsonMediaType(contentType)) {
    throw new ProblemException({ code: "unsupported_media_type", detail: SEND_JSON });
  }
}

function requireShallow(value: unknown): void {
  if (nestsDeeperThan(value, LIMITS.jsonDepth)) throw new ProblemException(TOO_DEEP);
}

function parseJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw new ProblemException({ code: "invalid_json", detail: "The body is not valid JSON." });
  }
  requireShallow(value);
  return value;
}

/** Requires a JSON media type and a parseable, not too deep body (hono caches the parse for the validator). */
const parseableJson = withSpec(
  createMiddleware(async (c, next) => {
    requireJsonMediaType(c.req.header("content-type"));
    let value: unknown;
    try {
      value = await c.req.json();
    } catch {
      throw new ProblemException({ code: "invalid_json", detail: "The body is not valid JSON." });
    }
    requireShallow(value);
    await next();
  }),
  { responses: problems(400, 415) },
);

/**
 * Size-limited, parsed and validated JSON body; spread into a route: `...jsonBody(schema)`.
 * `schema` is also the body the OpenAPI document describes, unless the route
 * checks part of the body later and names the whole shape in `describedAs`.
 */
export const jsonBody = <S extends z.ZodType>(
  schema: S,
  options: { maxSize?: number; describedAs?: z.ZodType } = {},
) =>
  [
    limitBody(options.maxSize),
    parseableJson,
    withSchema(
      // Typed clients (hono/client) send the schema's input: defaults make fields optional there.
      validator("json", async (value): Promise<z.output<S>> =>
        parsedOrProblem(await schema.safeParseAsync(value), BODY_SHAPE),
      ) as MiddlewareHandler<ApiEnv, string, { in: { json: z.input<S> }; out: { json: z.output<S> } }>,
      "json",
      options.describedAs ?? schema,
    ),
  ] as const;

/**
 * An optional JSON body, read inside a handler: empty means `{}`; otherwise
 * it must be JSON (by media type and content) matching `schema`. Clients
 * commonly POST actions without a body, with or without a JSON content type.
 */
export async function optionalJsonBody<S extends z.ZodType>(
  request: Request,
  schema: S,
): Promise<z.output<S>> {
  const text = await request.text();
  let value: unknown = {};
  if (text.trim() !== "") {
    requireJsonMediaType(request.headers.get("content-type"));
    value = parseJson(text);
  }
  return parsedOrProblem(await schema.safeParseAsync(value), BODY_SHAPE);
}
