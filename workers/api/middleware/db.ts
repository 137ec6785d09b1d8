// The request's database handle, set once ahead of every /v1 route so that
// routes and targets take it from the context (`c.var.db`) instead of each
// building it from the binding. Cron and queue handlers have no context and
// keep `database(env.DB)`.
import { createMiddleware } from "hono/factory";
import { database } from "../../../shared/db/client";
import type { ApiEnv } from "../types";

export const withDatabase = createMiddleware<ApiEnv>(async (c, next) => {
  c.set("db", database(c.env.DB));
  await next();
});
