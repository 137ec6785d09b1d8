// One answer for every request a schema refuses: 400 `invalid_request` with
// the failing fields as JSON-pointer paths.
import type { MiddlewareHandler } from "hono";
import { validator } from "hono/validator";
import type { z } from "zod";
import { ProblemException } from "../../../shared/http/problem";
import { withSchema } from "../openapi/describe";
import type { ApiEnv } from "../types";

/** Zod issues as stable, client-readable field errors (JSON-pointer paths). */
export const fieldErrors = (issues: readonly z.core.$ZodIssue[]) =>
  issues.map((issue) => ({
    path: `/${issue.path.map(String).join("/")}`,
    message: issue.message,
  }));

/** The parsed value, or the problem naming each field that failed. */
export function parsedOrProblem<T>(parsed: z.ZodSafeParseResult<T>, detail: string): T {
  if (parsed.success) return parsed.data;
  throw new ProblemException({
    code: "invalid_request",
    detail,
    extensions: { errors: fieldErrors(parsed.error.issues) },
  });
}

/**
 * What a typed client (hono/client) sends: every parameter as text, optional as the schema has
 * it. Hono would derive it from the parsed output, where defaults make parameters required.
 */
type QueryInput<S extends z.ZodType> = { [K in keyof z.input<S>]: string };

/**
 * Validates the query string against `schema` (typed for `c.req.valid("query")`);
 * its fields are the query parameters the OpenAPI document describes.
 */
export const validQuery = <S extends z.ZodType>(schema: S, detail = "Invalid query parameters.") =>
  withSchema(
    validator("query", (value): z.output<S> =>
      parsedOrProblem(schema.safeParse(value), detail),
    ) as MiddlewareHandler<ApiEnv, string, { in: { query: QueryInput<S> }; out: { query: z.output<S> } }>,
    "query",
    schema,
  );
