// One answer for every request a schema refuses: 400 `invalid_request` with
// the failing fields as JSON-pointer paths.
import { validator } from "hono/validator";
import type { z } from "zod";
import { ProblemException } from "../../../shared/http/problem";
import { withSchema } from "../openapi/describe";

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
 * Validates the query string against `schema` (typed for `c.req.valid("query")`);
 * its fields are the query parameters the OpenAPI document describes.
 */
export const validQuery = <S extends z.ZodType>(schema: S, detail = "Invalid query parameters.") =>
  withSchema(
    validator("query", (value): z.output<S> => parsedOrProblem(schema.safeParse(value), detail)),
    "query",
    schema,
  );
