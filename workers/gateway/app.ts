import { Hono } from "hono";
import { problemResponse } from "../../shared/http/problem";

// The data plane. It imports the sandbox and hook contracts, never the compiler:
// `npm run check:gateway` fails the build if esbuild reaches this bundle.
export const gateway = new Hono<{ Bindings: Env }>();

gateway.notFound((c) =>
  problemResponse({ code: "not_found", detail: `No route for ${c.req.method} ${new URL(c.req.url).pathname}.` }),
);

gateway.onError((error) => {
  console.error("unhandled gateway error", error);
  return problemResponse({ code: "internal_error", detail: "Something went wrong on our side." });
});
