// `/mcp/{ws}`: MCP over Streamable HTTP. The gateway keeps no session state:
// the session ids it issues carry what later requests need. POST carries
// messages (endpoint.ts); GET is the client's standalone stream (listen.ts),
// what its stateful upstreams send outside any request. Both check the host
// names, then the key, before the body is read.
import { Hono } from "hono";
import { problemResponse } from "../../../shared/http/problem";
import { requireAdmission, type AdmittedEnv } from "../middleware/auth";
import { checkHost } from "../middleware/host";
import { serveMcp } from "./endpoint";
import { listenMcp } from "./listen";

const admitted = requireAdmission<AdmittedEnv>((_c, problem) => problemResponse(problem));

export const mcpRoutes = new Hono<AdmittedEnv>()
  .post("/mcp/:ws", checkHost, admitted, (c) =>
    serveMcp(c.req.raw, c.env, c.executionCtx, c.req.param("ws"), c.get("admitted")),
  )
  .get("/mcp/:ws", checkHost, admitted, (c) =>
    listenMcp(c.req.raw, c.env, c.executionCtx, c.req.param("ws"), c.get("admitted")),
  )
  .delete("/mcp/:ws", () =>
    problemResponse({
      code: "method_not_allowed",
      detail: "Sessions of this MCP endpoint hold no state to end: send JSON-RPC messages with POST.",
      headers: { allow: "GET, POST" },
    }),
  );
