import { z } from "zod";
import { Hono } from "hono";
import { LIMITS } from "../../../shared/limits";
import { operation } from "../openapi/describe";
import type { ApiEnv } from "../types";

// Public and unauthenticated: clients and the editor size their input by it,
// and `npm start` polls it to know the server is ready.
export const limitsRoutes = new Hono<ApiEnv>().get(
  "/limits",
  operation({
    summary: "Every limit in force",
    ok: {
      "200": {
        description: "Each limit by name: byte sizes, counts, rates and timeouts (milliseconds)",
        schema: z.record(z.string(), z.union([z.number(), z.array(z.number())])),
      },
    },
    public: true,
  }),
  (c) => c.json(LIMITS),
);
