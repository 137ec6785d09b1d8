// Request bodies are bounded (LIMITS.requestBodyBytes) on /mcp and /llm alike,
// before anything parses them. /llm refuses a larger body as it streams in;
// /mcp reads its message itself (the SDK takes it parsed) and bounds that read.
import type { Context, Env as RouteEnv } from "hono";
import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import { utf8Bytes } from "../../../shared/json";
import { LIMITS } from "../../../shared/limits";

/** Refuses a body over the bound with `tooLarge`, which words it as the route answers its errors. */
export const limitBody = <E extends RouteEnv>(tooLarge: (c: Context<E>) => Response) =>
  createMiddleware<E>((c, next) =>
    bodyLimit({ maxSize: LIMITS.requestBodyBytes, onError: () => tooLarge(c) })(c, next),
  );

/** The body as text, or null when it is over the bound: its declared length is trusted first. */
export async function boundedText(request: Request): Promise<string | null> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > LIMITS.requestBodyBytes) return null;
  const text = await request.text();
  // UTF-8 takes at most 3 bytes per UTF-16 unit: only a body that could be over the limit is encoded.
  if (text.length * 3 > LIMITS.requestBodyBytes && utf8Bytes(text) > LIMITS.requestBodyBytes) return null;
  return text;
}
