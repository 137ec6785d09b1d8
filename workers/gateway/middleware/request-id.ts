// The id that names an /llm request in its answer and in its run records.
// Drawn before admission, so that even a refused key's answer carries one the
// client can quote. /mcp draws one per `tools/call` instead: a batch holds several.
import { createMiddleware } from "hono/factory";

export type RequestIdEnv = { Variables: { requestId: string } };

export const requestId = createMiddleware<RequestIdEnv>((c, next) => {
  c.set("requestId", crypto.randomUUID());
  return next();
});
