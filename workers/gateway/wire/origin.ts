// What a client says about itself beside the protocol: its agent loop
// (`x-rayrun-loop`, on /mcp and /llm alike) and, on /mcp, its MCP session id
// (`mcp-session-id`: the gateway is stateless and issues none but its own
// capability-carrying ids, yet a client or a proxy in front of it may keep
// one). Both reach plugins in `ctx`; a malformed value is refused before
// anything runs rather than handed to plugins.
import { LOOP_NAME_PATTERN } from "../../../shared/config/pre-llm-hook";
import type { Problem } from "../../../shared/http/problem";
import { err, ok, type Result } from "../../../shared/result";
import { LOOP_HEADER, SESSION_HEADER } from "./headers";

/** The MCP specification's session id alphabet: visible ASCII; the length bound is ours. */
const SESSION_ID_PATTERN = /^[\x21-\x7e]{1,256}$/;

export interface McpOrigin {
  loop?: string;
  sessionId?: string;
}

/** The refusal of a loop name that is not one, or null. */
export function loopRefusal(loop: string | null): Problem | null {
  if (loop === null || LOOP_NAME_PATTERN.test(loop)) return null;
  return {
    code: "invalid_request",
    detail: `${LOOP_HEADER} must be a loop name: 1–64 letters, digits, _, . or -.`,
  };
}

export function mcpOrigin(headers: Headers): Result<McpOrigin, Problem> {
  const loop = headers.get(LOOP_HEADER);
  const badLoop = loopRefusal(loop);
  if (badLoop !== null) return err(badLoop);
  const sessionId = headers.get(SESSION_HEADER);
  if (sessionId !== null && !SESSION_ID_PATTERN.test(sessionId)) {
    return err({
      code: "invalid_request",
      detail: `${SESSION_HEADER} must be 1–256 visible ASCII characters.`,
    });
  }
  return ok({
    ...(loop === null ? {} : { loop }),
    ...(sessionId === null ? {} : { sessionId }),
  });
}
