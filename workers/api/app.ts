import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { notFoundHandler } from "../../shared/http/not-found";
import { ProblemException, problemResponse } from "../../shared/http/problem";
import { catalogVersion } from "./middleware/catalog-version";
import { accessProfileRoutes } from "./routes/access-profiles";
import { approvalRoutes } from "./routes/approvals";
import { compileRoutes } from "./routes/compile";
import { configRoutes } from "./routes/config";
import { deploymentRoutes } from "./routes/deployments";
import { draftRoutes } from "./routes/drafts";
import { fileTestRoutes } from "./routes/file-test";
import { fileTypesRoutes } from "./routes/file-types";
import { filePathOperations, fileRoutes } from "./routes/files";
import { limitsRoutes } from "./routes/limits";
import { llmRoutes } from "./routes/llm";
import { logRoutes, targetLogRoutes } from "./routes/logs";
import { openapiRoutes } from "./routes/openapi";
import { quotaRoutes } from "./routes/quotas";
import { runRoutes } from "./routes/run";
import { secretRoutes } from "./routes/secrets";
import { serviceRoutes } from "./routes/services";
import { sessionRoutes } from "./routes/session";
import { toolConsoleRoutes } from "./routes/tool-console";
import { toolRoutes } from "./routes/tools";
import { userRoutes } from "./routes/users";
import { versionRoutes } from "./routes/versions";
import { workspaceRoutes } from "./routes/workspaces";
import { resolveFileTarget, resolveToolDeployTarget, resolveToolTarget } from "./targets";
import type { ApiEnv } from "./types";

export const app = new Hono<ApiEnv>();

app.use("/v1/workspaces/*", catalogVersion);

app.route("/v1", limitsRoutes);
app.route("/v1", openapiRoutes(app));
app.route("/v1", compileRoutes);
app.route("/v1", runRoutes);
app.route("/v1", workspaceRoutes);
app.route("/v1", serviceRoutes);
app.route("/v1", toolRoutes);
app.route("/v1", fileRoutes);
app.route("/v1", accessProfileRoutes);
app.route("/v1", secretRoutes);
app.route("/v1", approvalRoutes);
app.route("/v1", configRoutes);
app.route("/v1", logRoutes);
app.route("/v1", llmRoutes);
app.route("/v1", sessionRoutes);
app.route("/v1", userRoutes);
app.route("/v1", quotaRoutes);

// Tool adapters and workspace files share one lifecycle (drafts and versions,
// deployments, logs), each mounted with its kind's resolver; routes never
// import one another, so the composition lives here.
const HOOK = "/v1/workspaces/:ws/tools/:tool/hook";
app.route(HOOK, draftRoutes(resolveToolTarget));
app.route(HOOK, versionRoutes(resolveToolTarget));
app.route(HOOK, deploymentRoutes(resolveToolDeployTarget));
app.route(HOOK, targetLogRoutes(resolveToolTarget));
app.route(HOOK, toolConsoleRoutes);

const FILE = "/v1/workspaces/:ws/files/:path";
// Before the file routes: hono-openapi applies it to the operations registered after it.
app.use(`${FILE}/*`, filePathOperations);
app.route(FILE, draftRoutes(resolveFileTarget));
app.route(FILE, versionRoutes(resolveFileTarget));
app.route(FILE, deploymentRoutes(resolveFileTarget));
app.route(FILE, targetLogRoutes(resolveFileTarget));
app.route(FILE, fileTestRoutes);
app.route(FILE, fileTypesRoutes);

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
