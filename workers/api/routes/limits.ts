import { Hono } from "hono";
import { LIMITS } from "../../../shared/limits";
import type { ApiEnv } from "../types";

// Public and unauthenticated: clients and the editor size their input by it,
// and `npm start` polls it to know the server is ready.
export const limitsRoutes = new Hono<ApiEnv>().get("/limits", (c) => c.json(LIMITS));
