// JSON-RPC errors the MCP endpoint answers, worded once.

/**
 * A JSON-RPC error the SDK answers as given. Not the SDK's McpError: that
 * prefixes its message with "MCP error <code>:", and the client's SDK wraps
 * it in another, so users read the prefix twice.
 */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/**
 * An upstream error's message without the "MCP error <code>: " an SDK server
 * puts in front of it: the client's SDK adds its own, and users would read it twice.
 */
export function bareMessage(code: number, message: string): string {
  const prefix = `MCP error ${code}: `;
  let bare = message;
  while (bare.startsWith(prefix)) bare = bare.slice(prefix.length);
  return bare;
}

/** JSON-RPC's first implementation-defined server error: for refusals the protocol has no code for. */
export const SERVER_ERROR = -32000;

/**
 * A JSON-RPC error answered before the protocol starts (so to no request id):
 * a body too large or too deep, a refused batch, a key over its rate.
 */
export const rpcRefusal = (
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response => Response.json({ jsonrpc: "2.0", id: null, error: { code, message } }, { status, headers });
