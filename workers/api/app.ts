import { Hono } from "hono";
import { notFoundHandler } from "../../shared/http/not-found";
import { HTTPException } from "hono/http-exception";
import { ProblemException, problemResponse } from "../../shared/http/problem";
import { catalogVersion } from "./middleware/catalog-version";
import { accessProfileRoutes } from "./routes/access-profiles";
import { approvalRoutes } from "./routes/approvals";
import { compileRoutes } from "./routes/compile";
import { configRoutes } from "./routes/config";
import { hookRoutes } from "./routes/hooks";
import { fileRoutes } from "./routes/files";
import { limitsRoutes } from "./routes/limits";
import { llmRoutes } from "./routes/llm";
import { logRoutes } from "./routes/logs";
import { openapiRoutes } from "./routes/openapi";
import { runRoutes } from "./routes/run";
import { secretRoutes } from "./routes/secrets";
import { serviceRoutes } from "./routes/services";
import { toolDeploymentRoutes } from "./routes/tool-deployments";
import { toolRoutes } from "./routes/tools";
import { workspaceRoutes } from "./routes/workspaces";
import type { ApiEnv } from "./types";

export const app = new Hono<ApiEnv>();

app.use("/v1/workspaces/*", catalogVersion);

app.route("/v1", limitsRoutes);
app.route("/v1", openapiRoutes);
app.route("/v1", compileRoutes);
app.route("/v1", runRoutes);
app.route("/v1", workspaceRoutes);
app.route("/v1", serviceRoutes);
app.route("/v1", toolRoutes);
app.route("/v1", hookRoutes);
app.route("/v1", toolDeploymentRoutes);
app.route("/v1", fileRoutes);
app.route("/v1", accessProfileRoutes);
app.route("/v1", secretRoutes);
app.route("/v1", approvalRoutes);
app.route("/v1", configRoutes);
app.route("/v1", logRoutes);
app.route("/v1", llmRoutes);

// Locally one port serves everything: the data plane lives in the gateway Worker.
app.all("/mcp/*", (c) => c.env.GATEWAY.fetch(c.req.raw));
app.all("/llm/*", (c) => c.env.GATEWAY.fetch(c.req.raw));

app.notFound(notFoundHandler(app));

app.onError((error) => {
  if (error instanceof ProblemException) return problemResponse(error.problem);
  if (error instanceof HTTPException && error.status < 500) {
    // Hono's own guards (e.g. malformed headers) carry no stable code of ours.
    return problemResponse({ code: "invalid_request", detail: "The request is not valid." });
  }
  // Details stay in the logs; clients get a generic body.
  console.error("unhandled error", error);
  return problemResponse({ code: "internal_error", detail: "Something went wrong on our side." });
});
