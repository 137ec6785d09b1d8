import { type Context, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { notFoundHandler } from "../../shared/http/not-found";
import { ProblemException, problemResponse } from "../../shared/http/problem";
import { SIM_COLO_HEADER, simStats } from "../../shared/sim/distance";
import { catalogVersion } from "./middleware/catalog-version";
import { withDatabase } from "./middleware/db";
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
import {
  type DeployResolver,
  type Resolver,
  resolveFileTarget,
  resolveToolDeployTarget,
  resolveToolTarget,
} from "./targets";
import type { ApiEnv } from "./types";

export const app = new Hono<ApiEnv>();

/**
 * The gateway a request goes to: GATEWAY, or with the dev-only `x-rayrun-colo: n` header the
 * colo `npm start` runs as GATEWAY_n (SIM_COLOS; docs/architecture.md, "Distance, simulated").
 * An unknown colo is refused rather than quietly served by another one.
 */
function toGateway(c: Context<ApiEnv>): Promise<Response> | Response {
  const colo = c.req.header(SIM_COLO_HEADER);
  if (colo === undefined || colo === "1") return c.env.GATEWAY.fetch(c.req.raw);
  const binding: unknown = /^[1-9][0-9]{0,3}$/.test(colo) ? Reflect.get(c.env, `GATEWAY_${colo}`) : undefined;
  if (typeof binding === "object" && binding !== null && "fetch" in binding)
    return (binding as Fetcher).fetch(c.req.raw);
  return problemResponse({
    code: "invalid_request",
    detail: `${SIM_COLO_HEADER}: ${JSON.stringify(colo)} names no gateway colo; npm start with SIM_COLOS=<n> runs colos 1 to n.`,
  });
}

// Dev-only, first so that it costs nothing otherwise: with SIM_HOME_RTT_MS set, this isolate's
// counters, or with x-rayrun-colo a gateway colo's counters and its `POST /__sim/forget` (the
// caches a cold isolate lacks are the gateway's); unset, the 404 any unknown path gets.
app.all("/__sim/*", (c) => {
  if (c.req.header(SIM_COLO_HEADER) !== undefined) return toGateway(c);
  const stats = c.req.method === "GET" && c.req.path === "/__sim/stats" ? simStats("api", c.env) : null;
  return stats === null ? c.notFound() : c.json(stats);
});

// Tool adapters and workspace files share one lifecycle (drafts and versions,
// deployments, logs), each mounted with its kind's resolver; routes never
// import one another, so the composition lives here.
const lifecycleRoutes = (resolve: Resolver, resolveDeploy: DeployResolver) =>
  new Hono<ApiEnv>()
    .route("/", draftRoutes(resolve))
    .route("/", versionRoutes(resolve))
    .route("/", deploymentRoutes(resolveDeploy))
    .route("/", targetLogRoutes(resolve));

const HOOK = "/v1/workspaces/:ws/tools/:tool/hook";
const FILE = "/v1/workspaces/:ws/files/:path";

// One chain, so that its type carries every route's input and answer.
const routes = app
  .use("/v1/*", withDatabase)
  .use("/v1/workspaces/*", catalogVersion)
  .route("/v1", limitsRoutes)
  .route("/v1", openapiRoutes(app))
  .route("/v1", compileRoutes)
  .route("/v1", runRoutes)
  .route("/v1", workspaceRoutes)
  .route("/v1", serviceRoutes)
  .route("/v1", toolRoutes)
  .route("/v1", fileRoutes)
  .route("/v1", accessProfileRoutes)
  .route("/v1", secretRoutes)
  .route("/v1", approvalRoutes)
  .route("/v1", configRoutes)
  .route("/v1", logRoutes)
  .route("/v1", llmRoutes)
  .route("/v1", sessionRoutes)
  .route("/v1", userRoutes)
  .route("/v1", quotaRoutes)
  .route(HOOK, lifecycleRoutes(resolveToolTarget, resolveToolDeployTarget))
  .route(HOOK, toolConsoleRoutes)
  // Before the file routes: hono-openapi applies it to the operations registered after it.
  .use(`${FILE}/*`, filePathOperations)
  .route(FILE, lifecycleRoutes(resolveFileTarget, resolveFileTarget))
  .route(FILE, fileTestRoutes)
  .route(FILE, fileTypesRoutes);

/** The api's routes as types, for `hc<ApiApp>(…)` (hono/client): each route's input and JSON answer. */
export type ApiApp = typeof routes;
/** The routes under any lifecycle target's base path (`…/tools/{tool}/hook`, `…/files/{path}`). */
export type LifecycleApp = ReturnType<typeof lifecycleRoutes>;
/** What a tool adapter's base path adds: its test console and declarations. */
export type ToolConsoleApp = typeof toolConsoleRoutes;
/** What a workspace file's base path adds: its test console, and its declarations. */
export type FileTestApp = typeof fileTestRoutes;
export type FileTypesApp = typeof fileTypesRoutes;

// Locally one port serves everything: the data plane lives in the gateway Worker (or its colos).
app.all("/mcp/*", toGateway);
app.all("/llm/*", toGateway);

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
