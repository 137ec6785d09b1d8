// Request bodies are bounded (LIMITS.requestBodyBytes) on /mcp and /llm alike,
// before anything parses them. /llm refuses a larger body as it streams in;
// /mcp reads its message itself (the SDK takes it parsed) and bounds that read.
// Both refusals say the body's size and the limit as the API does (shared/http/body-limit.ts).
import type { Context, Env as RouteEnv } from "hono";
import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import { bodyTooLarge, declaredBytes } from "../../../shared/http/body-limit";
import type { Problem } from "../../../shared/http/problem";
import { utf8Bytes } from "../../../shared/json";
import { LIMITS } from "../../../shared/limits";
import { err, ok, type Result } from "../../../shared/result";

export type TooLarge = Problem & { detail: string };

/** Refuses a body over the bound with `tooLarge`, which words it as the route answers its errors. */
export const limitBody = <E extends RouteEnv>(tooLarge: (c: Context<E>, problem: TooLarge) => Response) =>
  createMiddleware<E>((c, next) =>
    bodyLimit({
      maxSize: LIMITS.requestBodyBytes,
      onError: () => tooLarge(c, bodyTooLarge(LIMITS.requestBodyBytes, declaredBytes(c.req.raw.headers))),
    })(c, next),
  );

/** The body as text, or the refusal when it is over the bound: its declared length is trusted first. */
export async function boundedText(request: Request): Promise<Result<string, TooLarge>> {
  const limit = LIMITS.requestBodyBytes;
  const declared = declaredBytes(request.headers);
  if (declared !== null && declared > limit) return err(bodyTooLarge(limit, declared));
  const text = await request.text();
  // UTF-8 takes at most 3 bytes per UTF-16 unit: only a body that could be over the limit is encoded.
  if (text.length * 3 > limit) {
    const bytes = utf8Bytes(text);
    if (bytes > limit) return err(bodyTooLarge(limit, bytes));
  }
  return ok(text);
}
