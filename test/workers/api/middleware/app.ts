// A small Hono app for one middleware at a time, rendering errors the way the
// api's app does (ProblemException → its problem document).
import { env } from "cloudflare:workers";
import { Hono } from "hono";
import { expect } from "vitest";
import { ProblemException, problemResponse } from "../../../../shared/http/problem";
import { withDatabase } from "../../../../workers/api/middleware/db";
import type { ApiEnv } from "../../../../workers/api/types";

export function testApp(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.use(withDatabase);
  app.onError((error) => {
    if (error instanceof ProblemException) return problemResponse(error.problem);
    return problemResponse({ code: "internal_error", detail: String(error) });
  });
  return app;
}

/** Sends `init` to `app` with the test Worker's bindings. */
export const send = (app: Hono<ApiEnv>, path: string, init: RequestInit = {}): Promise<Response> =>
  Promise.resolve(app.request(path, init, env));

export interface ProblemBody {
  status: number;
  code: string;
  detail?: string;
  errors?: { path: string; message: string }[];
  [extension: string]: unknown;
}

/** The problem document of `res`, after checking its status, code and media type. */
export async function expectProblem(res: Response, status: number, code: string): Promise<ProblemBody> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  const body = JSON.parse(text) as ProblemBody;
  expect(body).toMatchObject({ status, code });
  return body;
}
