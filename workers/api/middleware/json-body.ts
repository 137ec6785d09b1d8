import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import { validator } from "hono/validator";
import type { z } from "zod";
import { ProblemException } from "../../../shared/http/problem";
import { LIMITS } from "../../../shared/limits";

/** Refuses bodies over the API's limit before anything reads them. */
export const limitBody = (maxSize: number = LIMITS.requestBodyBytes) =>
  bodyLimit({
    maxSize,
    onError: () => {
      throw new ProblemException({
        code: "payload_too_large",
        detail: `Request bodies are limited to ${maxSize} bytes.`,
        extensions: { limit: maxSize },
      });
    },
  });

const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;

/** Requires a JSON media type and a parseable body (hono caches the parse for the validator). */
const parseableJson = createMiddleware(async (c, next) => {
  const mediaType = (c.req.header("content-type") ?? "").split(";")[0]?.trim() ?? "";
  if (!JSON_MEDIA_TYPE.test(mediaType)) {
    throw new ProblemException({
      code: "unsupported_media_type",
      detail: "Send a JSON body with Content-Type: application/json.",
    });
  }
  try {
    await c.req.json();
  } catch {
    throw new ProblemException({ code: "invalid_json", detail: "The body is not valid JSON." });
  }
  await next();
});

/** Zod issues as stable, client-readable field errors (JSON-pointer paths). */
export const fieldErrors = (issues: readonly z.core.$ZodIssue[]) =>
  issues.map((issue) => ({
    path: `/${issue.path.map(String).join("/")}`,
    message: issue.message,
  }));

/** Size-limited, parsed and validated JSON body; spread into a route: `...jsonBody(schema)`. */
export const jsonBody = <S extends z.ZodType>(schema: S, maxSize?: number) =>
  [
    limitBody(maxSize),
    parseableJson,
    validator("json", async (value): Promise<z.output<S>> => {
      const parsed = await schema.safeParseAsync(value);
      if (!parsed.success) {
        throw new ProblemException({
          code: "invalid_request",
          detail: "The body does not match the expected shape.",
          extensions: { errors: fieldErrors(parsed.error.issues) },
        });
      }
      return parsed.data;
    }),
  ] as const;
