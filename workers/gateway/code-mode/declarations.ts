// Code discovery's TypeScript: what `describe_tools` answers for the tools it
// is asked about, generated from each tool's public definition (the one Direct
// Mode's tools/list shows) with the converter the editor's `…/hook/types`
// uses. Descriptions become JSDoc. Pure, so Node tests can type-check it.
import { docText, propertyKey, schemaToTypeDeclarations } from "../../../shared/contract/schema-to-ts";

/** What a tool's declaration is made of: its public name, description and schemas. */
export interface PublicTool {
  name: string;
  description?: string;
  inputSchema: unknown;
  outputSchema?: unknown;
}

/** What every declaration refers to, and what the code can reach besides `tools`. */
export const CODE_MODE_AMBIENT = `type ToolJson = null | boolean | number | string | ToolJson[] | { [key: string]: ToolJson };

/** MCP content blocks, as a tool without an output schema returns them. */
type ToolContentBlock =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string }
  | { type: "audio"; data: string; mimeType: string }
  | { type: "resource_link"; uri: string; name: string; description?: string; mimeType?: string }
  | { type: "resource"; resource: { uri: string; mimeType?: string; text?: string; blob?: string } };

/** Thrown by a tool call that the gateway refused (code, reason) or that its upstream failed (code "upstream_error" or "upstream_tool_error"). */
declare class ToolError extends Error {
  readonly name: "ToolError" | "ApprovalRequired";
  /** A stable code: the one a Direct Mode call would carry in _meta["rayrun/error"]. */
  readonly code: string;
  readonly reason?: string;
  /** The call's request id, as its run records and logs show it. */
  readonly requestId: string;
  /** The approval the call asked for (approval_required), or the one a refused approved call carried. */
  readonly approvalId?: string;
  /** The upstream's JSON-RPC error code (upstream_error). */
  readonly rpcCode?: number;
  /** The upstream's JSON-RPC error data, or its error result's content (upstream_tool_error). */
  readonly data?: ToolJson;
}

/**
 * Thrown by a tool call that needs a person's approval. It ends the execution, even if the code catches it:
 * execute answers the error approval_required with this approvalId. Once the approval is approved, the client
 * repeats the same execute with _meta["rayrun/approvalId"], and this call is then sent, once, as approved.
 */
declare class ApprovalRequired extends ToolError {
  readonly name: "ApprovalRequired";
  readonly code: "approval_required";
  readonly approvalId: string;
}

/** Kept with the execution and returned as its \`logs\`; message and data are bounded. */
declare const console: {
  log(...values: unknown[]): void;
  info(...values: unknown[]): void;
  debug(...values: unknown[]): void;
  warn(...values: unknown[]): void;
  error(...values: unknown[]): void;
};`;

/** `search_release_notes` → `Search_release_notes`, a prefix for the tool's type names. */
function typeStem(name: string, taken: Set<string>): string {
  const cleaned = name.replace(/[^A-Za-z0-9_$]/g, "_");
  const base = /^[A-Za-z_$]/.test(cleaned) ? cleaned : `T_${cleaned}`;
  const upper = `${base.charAt(0).toUpperCase()}${base.slice(1)}`;
  let stem = upper;
  for (let n = 2; taken.has(stem); n++) stem = `${upper}${n}`;
  taken.add(stem);
  return stem;
}

/**
 * The declarations of `tools` (a global object with one async method per
 * tool), each tool's argument and result types, and the ambient types. A tool
 * without an output schema resolves to `{ content }`, as its call does.
 */
export function codeModeDeclarations(tools: readonly PublicTool[]): string {
  const taken = new Set([
    "ToolJson",
    "ToolContentBlock",
    "ToolError",
    "ApprovalRequired",
    "tools",
    "console",
  ]);
  const types: string[] = [];
  const members: string[] = [];
  for (const tool of tools) {
    const stem = typeStem(tool.name, taken);
    const args = `${stem}Args`;
    const result = `${stem}Result`;
    const reserved = [...taken, args, result];
    const name = docText(tool.name);
    types.push(schemaToTypeDeclarations(tool.inputSchema, args, `Arguments of ${name}.`, reserved));
    types.push(
      tool.outputSchema === undefined
        ? `/** What ${name} resolves to: it declares no output schema, so its content blocks. */\ntype ${result} = { content: ToolContentBlock[] };`
        : schemaToTypeDeclarations(tool.outputSchema, result, `What ${name} resolves to.`, reserved),
    );
    taken.add(args).add(result);
    const doc = tool.description === undefined || tool.description === "" ? name : docText(tool.description);
    members.push(`  /** ${doc} */\n  ${propertyKey(tool.name)}(args: ${args}): Promise<${result}>;`);
  }
  const toolsDecl = `/** The workspace's tools: each call is one gateway tool call; a refusal or upstream failure throws a ToolError. */\ndeclare const tools: {\n${members.join("\n")}\n};`;
  return [CODE_MODE_AMBIENT, ...types, toolsDecl].join("\n\n");
}
