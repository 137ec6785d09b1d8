// `GET /v1/openapi.json`. The document is built from the app the route is
// mounted in (every route declares its own operation), so app.ts hands it over
// rather than this file importing the routes.
import { z } from "zod";
import { Hono } from "hono";
import { openapiDocument } from "../openapi/document";
import { operation } from "../openapi/describe";
import type { ApiEnv } from "../types";

export const openapiRoutes = (app: Hono<ApiEnv>) =>
  new Hono<ApiEnv>().get(
    "/openapi.json",
    operation({
      summary: "This document",
      ok: {
        "200": {
          description: "An OpenAPI 3.1 document",
          schema: z.looseObject({
            openapi: z.string(),
            info: z.record(z.string(), z.unknown()),
            paths: z.record(z.string(), z.unknown()),
          }),
        },
      },
      public: true,
    }),
    openapiDocument(app),
  );
