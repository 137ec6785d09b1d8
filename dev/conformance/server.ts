// The reference upstream: an MCP server that passes the official conformance
// suite (`npx conformance server`) on its own, so the same suite run through
// the gateway shows what the gateway breaks. main.ts builds one per session.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  LoggingLevelSchema,
  SetLevelRequestSchema,
  type LoggingLevel,
} from "@modelcontextprotocol/sdk/types.js";
import { registerPrompts } from "./prompts.ts";
import { registerResources } from "./resources.ts";
import { registerTools, type LogFilter } from "./tools.ts";

/** Severity order, least severe first (debug … emergency), as the schema lists them. */
const SEVERITY: readonly LoggingLevel[] = LoggingLevelSchema.options;

export function createConformanceServer(): McpServer {
  const mcp = new McpServer(
    { name: "rayrun-conformance-reference", version: "1.0.0" },
    // Tools, prompts and completions register their own capabilities; these two
    // have no McpServer registration to imply them.
    { capabilities: { logging: {}, resources: { subscribe: true } } },
  );
  registerTools(mcp, trackLogLevel(mcp));
  registerResources(mcp);
  registerPrompts(mcp);
  return mcp;
}

/**
 * Keeps the level set by logging/setLevel. The SDK's own handler keeps it
 * privately and only applies it to `sendLoggingMessage`, which writes to the
 * session's GET stream; tools log on their call's stream instead, so they
 * need the level themselves. Replacing the handler keeps one source of truth.
 */
function trackLogLevel(mcp: McpServer): LogFilter {
  let minimum: LoggingLevel | undefined;
  mcp.server.setRequestHandler(SetLevelRequestSchema, ({ params: { level } }) => {
    minimum = level;
    return {};
  });
  return (level) => minimum === undefined || SEVERITY.indexOf(level) >= SEVERITY.indexOf(minimum);
}
