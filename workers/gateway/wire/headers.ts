// The HTTP headers the gateway reads and writes, named once for /mcp, /llm and
// the upstream exchanges.

/** Names the call in the answer and in the hook-run log, so a client can find its run. */
export const REQUEST_ID_HEADER = "x-rayrun-request-id";
/** The agent loop making the call ("main" or an inner loop's name): what `pre_llm_hook` targets. */
export const LOOP_HEADER = "x-rayrun-loop";
/** `true` on history-compaction calls, which never run the request hook. */
export const COMPACTION_HEADER = "x-rayrun-compaction";
/** MCP's session id, on requests from clients and on answers from upstreams. */
export const SESSION_HEADER = "mcp-session-id";
/** MCP's negotiated protocol version, sent after `initialize`. */
export const PROTOCOL_HEADER = "mcp-protocol-version";
