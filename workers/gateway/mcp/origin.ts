// What an MCP client says about itself beside the protocol, read once per
// `/mcp` request: its agent loop (`x-rayrun-loop`, named as on `/llm`) and
// its MCP session id (`mcp-session-id`: the gateway is stateless and issues
// none, but a client or a proxy in front of it may keep one). Both reach the
// plugins' tool.execute.* hooks in `ctx`; a malformed value is refused before
// the protocol starts rather than handed to plugins.
import { LOOP_NAME_PATTERN } from "../../../shared/config/pre-llm-hook";
import type { Problem } from "../../../shared/http/problem";
import { LOOP_HEADER } from "../llm";

export const SESSION_HEADER = "mcp-session-id";

/** The MCP specification's session id alphabet: visible ASCII; the length bound is ours. */
const SESSION_ID_PATTERN = /^[\x21-\x7e]{1,256}$/;

export interface McpOrigin {
  loop?: string;
  sessionId?: string;
}

export function mcpOrigin(
  headers: Headers,
): { ok: true; value: McpOrigin } | { ok: false; problem: Problem } {
  const loop = headers.get(LOOP_HEADER);
  if (loop !== null && !LOOP_NAME_PATTERN.test(loop)) {
    return {
      ok: false,
      problem: {
        code: "invalid_request",
        detail: `${LOOP_HEADER} must be a loop name: 1–64 letters, digits, _, . or -.`,
      },
    };
  }
  const sessionId = headers.get(SESSION_HEADER);
  if (sessionId !== null && !SESSION_ID_PATTERN.test(sessionId)) {
    return {
      ok: false,
      problem: {
        code: "invalid_request",
        detail: `${SESSION_HEADER} must be 1–256 visible ASCII characters.`,
      },
    };
  }
  return {
    ok: true,
    value: {
      ...(loop === null ? {} : { loop }),
      ...(sessionId === null ? {} : { sessionId }),
    },
  };
}
