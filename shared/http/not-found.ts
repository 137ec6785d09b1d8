// The answer for a request no route handles: 405 with `Allow` when the path
// exists under other methods, 404 otherwise. Hono answers both with its
// notFound handler; the router it already built tells which methods a path
// has (middleware registered for every method does not count).
import type { Context, Env, Hono } from "hono";
import { problemResponse } from "./problem";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/** The methods a route (not a middleware) of `app` answers at `path`. */
function allowedMethods<E extends Env>(app: Hono<E>, path: string): string[] {
  return METHODS.filter((method) =>
    app.router.match(method, path)[0].some(([[, route]]) => route.method === method),
  );
}

/** A notFound handler for `app`: 405 naming the allowed methods, else 404. */
export function notFoundHandler<E extends Env>(app: Hono<E>) {
  return (c: Context<E>): Response => {
    const path = new URL(c.req.url).pathname;
    const allow = allowedMethods(app, path);
    if (allow.length > 0) {
      return problemResponse({
        code: "method_not_allowed",
        detail: `${c.req.method} is not allowed on ${path}: use ${allow.join(" or ")}.`,
        headers: { allow: allow.join(", ") },
      });
    }
    return problemResponse({ code: "not_found", detail: `No route for ${c.req.method} ${path}.` });
  };
}
