import { Hono } from "hono";
import { notFoundHandler } from "../../shared/http/not-found";
import { problemResponse } from "../../shared/http/problem";
import { authenticateCaller } from "./auth";
import { BENCH_RELAY_PATH, benchRelay } from "./bench-relay";
import { llmRoutes } from "./llm";
import { serveMcp } from "./mcp";
import { allowedHosts, hostRefusal } from "./mcp-host";

// The data plane. It imports the sandbox and hook contracts, never the compiler:
// `npm run check:gateway` fails the build if esbuild reaches this bundle.
export const gateway = new Hono<{ Bindings: Env }>();

// Before /mcp/:ws, which would read "_bench" as a workspace (uids start with "ws_").
gateway.post(BENCH_RELAY_PATH, benchRelay);

// MCP over Streamable HTTP, stateless: POST only (session ids carry what the gateway needs; no
// standalone SSE stream).
gateway.post("/mcp/:ws", async (c) => {
  // Read by name: the generated Env holds only the first config's vars (the API's).
  const hosts: unknown = Reflect.get(c.env, "MCP_ALLOWED_HOSTS");
  const refused = hostRefusal(c.req.raw, allowedHosts(typeof hosts === "string" ? hosts : undefined));
  if (refused !== null) return problemResponse(refused);
  const ws = c.req.param("ws");
  const auth = await authenticateCaller(c.env, c.req.header("authorization"), ws);
  if (!auth.ok) return problemResponse(auth.problem);
  return serveMcp(c.req.raw, c.env, c.executionCtx, ws, auth);
});

gateway.on(["GET", "DELETE"], "/mcp/:ws", () =>
  problemResponse({
    code: "method_not_allowed",
    detail: "This MCP endpoint is stateless: send JSON-RPC messages with POST.",
    headers: { allow: "POST" },
  }),
);

// The LLM proxy: OpenAI- and Anthropic-compatible endpoints with the request hook in front.
gateway.route("/", llmRoutes);

gateway.notFound(notFoundHandler(gateway));

gateway.onError((error) => {
  console.error("unhandled gateway error", error);
  return problemResponse({ code: "internal_error", detail: "Something went wrong on our side." });
});
