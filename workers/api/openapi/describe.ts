// How routes declare their OpenAPI operations next to their handlers.
// hono-openapi collects what each middleware of a route carries under its
// symbol: `operation(…)` the summary and answers, and the middlewares that
// enforce something (auth, body and query validation) describe it themselves,
// so the document cannot drift from what is enforced.
import { describeRoute, type DescribeRouteOptions, resolver, uniqueSymbol } from "hono-openapi";
import type { z } from "zod";
import { openapiSchema } from "./schema";

type Responses = NonNullable<DescribeRouteOptions["responses"]>;
type Parameter = NonNullable<DescribeRouteOptions["parameters"]>[number];

/** Every refusal is a problem document (components/responses/Problem). */
export const PROBLEM_REF = "#/components/responses/Problem";

/** `{ "404": Problem, … }` for the statuses a route may refuse with. */
export const problems = (...statuses: number[]): Responses =>
  Object.fromEntries(statuses.map((status) => [String(status), { $ref: PROBLEM_REF }]));

/** The symbol entry of a middleware that describes part of an operation. */
export const withSpec = <M extends object>(middleware: M, spec: DescribeRouteOptions): M =>
  Object.assign(middleware, { [uniqueSymbol]: { spec } });

/** hono-openapi's resolver, with recursive parts named by content (schema.ts). */
const resolverOf = (schema: z.ZodType) => ({
  ...resolver(schema),
  toOpenAPISchema: () => openapiSchema(schema),
});

/** The symbol entry of a validator: the schema it validates `target` with becomes the body or parameters. */
export const withSchema = <M extends object>(middleware: M, target: "json" | "query", schema: z.ZodType): M =>
  Object.assign(middleware, { [uniqueSymbol]: { target, ...resolverOf(schema) } });

/** A 2xx answer with a body: its JSON schema, or for another `media` type text. */
type Answer = { description: string } & ({ schema: z.ZodType } | { media: string });

/**
 * `c.json(shaped(Schema, value))`: the value must be of the type of the schema that the operation
 * documents it with, so the document and the code cannot drift apart; typed clients (hono/client)
 * still see the value's own, often narrower, type.
 */
export const shaped = <S extends z.ZodType, T extends z.output<S>>(_schema: S, value: T): T => value;

export interface Operation {
  summary: string;
  /** Success status → what it answers: a schema for every body; a description alone for 204. */
  ok: Record<string, Answer | (string & {})> & { [status in "200" | "201"]?: Answer };
  /** Refusals besides the ones the route's middlewares declare (auth, body, query). */
  problems?: number[];
  /** "returns": the answer carries the resource's ETag; "requires": If-Match is required. */
  etag?: "returns" | "requires";
  /** A body the handler reads itself (optional bodies): its schema, documented as not required. */
  optionalBody?: z.ZodType;
  /** No key needed. */
  public?: boolean;
  /** Only the session cookie authenticates (the session endpoints). */
  session?: boolean;
  /** Optional request headers the handler reads. */
  headers?: { name: string; description: string }[];
}

const IF_MATCH: Parameter = {
  name: "If-Match",
  in: "header",
  required: true,
  description: "The ETag the change is based on",
  schema: { type: "string" },
};

const ETAG_HEADER = { ETag: { description: "The resource's entity tag", schema: { type: "string" } } };

function answer(spec: string | Answer, etag: boolean) {
  const description = typeof spec === "string" ? spec : spec.description;
  const content =
    typeof spec === "string"
      ? undefined
      : "schema" in spec
        ? { "application/json": { schema: resolverOf(spec.schema) } }
        : { [spec.media]: { schema: { type: "string" as const } } };
  return { description, ...(etag ? { headers: ETAG_HEADER } : {}), ...(content ? { content } : {}) };
}

/** The operation of the route it is placed in: `.get(path, operation({…}), requireScope(…), handler)`. */
export function operation(op: Operation) {
  const ok = Object.entries(op.ok).map(([status, spec]) => [status, answer(spec, op.etag === "returns")]);
  return describeRoute({
    summary: op.summary,
    ...(op.public ? { security: [] } : op.session ? { security: [{ session: [] }] } : {}),
    ...(op.etag === "requires" || op.headers !== undefined
      ? {
          parameters: [
            ...(op.etag === "requires" ? [IF_MATCH] : []),
            ...(op.headers ?? []).map((h): Parameter => ({
              ...h,
              in: "header",
              required: false,
              schema: { type: "string" },
            })),
          ],
        }
      : {}),
    ...(op.optionalBody === undefined
      ? {}
      : {
          requestBody: {
            required: false,
            content: { "application/json": { schema: resolverOf(op.optionalBody) } },
          },
        }),
    responses: { ...Object.fromEntries(ok), ...problems(...(op.problems ?? [])) },
  });
}
