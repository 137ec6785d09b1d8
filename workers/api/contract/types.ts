// The `.d.ts` the editor loads beside a tool adapter: `Args`/`Result` from the
// tool's current upstream schemas, plus the ambient API a hook sees in the
// sandbox (`defineToolAdapter`, the stage inputs and outcomes, `context`).
// It is a global script (no import/export), so the hook file needs no import.
import { docText, schemaToTypeDeclarations } from "../../../shared/contract/schema-to-ts";

export interface AdapterTypesInput {
  /** The upstream tool's input schema. */
  inputSchema: unknown;
  /** The upstream tool's output schema, when it declares one. */
  outputSchema?: unknown;
  /** The tool's public name, for the header and docs only. */
  toolName: string;
}

const RESERVED = ["Args", "Result", "defineToolAdapter"];

// Without an output schema, `after` sees `{ content }`.
const CONTENT_RESULT = `/** What \`after\` receives: the upstream tool declares no output schema, so its MCP content blocks. */
type Result = { content: RayrunContentBlock[] };`;

const AMBIENT = `type RayrunJson = null | boolean | number | string | RayrunJson[] | { [key: string]: RayrunJson };

/** MCP content blocks, as the upstream returns them. */
type RayrunContentBlock =
  | { type: "text"; text: string; annotations?: { [key: string]: RayrunJson }; _meta?: { [key: string]: RayrunJson } }
  | { type: "image"; data: string; mimeType: string; annotations?: { [key: string]: RayrunJson } }
  | { type: "audio"; data: string; mimeType: string; annotations?: { [key: string]: RayrunJson } }
  | { type: "resource_link"; uri: string; name: string; title?: string; description?: string; mimeType?: string }
  | { type: "resource"; resource: { uri: string; mimeType?: string; text?: string; blob?: string } };

/** A JSON Schema for the public definition; MCP tool schemas describe objects. */
type RayrunObjectSchema = { type: "object"; [keyword: string]: unknown };

/** Replaces what Direct and Code discovery show for this tool; read once at compile time. */
interface RayrunPublicContract {
  description?: string;
  inputSchema?: RayrunObjectSchema;
  outputSchema?: RayrunObjectSchema;
}

interface RayrunLog {
  /** \`data\` must be JSON; entry count, message length and data size are bounded. */
  debug(message: string, data?: unknown): void;
  info(message: string, data?: unknown): void;
  warn(message: string, data?: unknown): void;
  error(message: string, data?: unknown): void;
}

/** Immutable facts about the call; the same for every stage of it. */
interface RayrunToolCallContext {
  /** Fixed ISO timestamp of the call. */
  readonly calledAt: string;
  /** Correlation id of the call. */
  readonly requestId: string;
  readonly workspaceUid: string;
  /** The upstream service's uid. */
  readonly connectionId: string;
  readonly toolUid: string;
  readonly toolName: string;
  /** The non-secret JSON config deployed with this revision. */
  readonly config: { readonly [key: string]: RayrunJson };
  /** UTF-8 strings to and from base64. */
  readonly encoding: {
    base64Encode(value: string): string;
    base64Decode(value: string): string;
  };
  readonly log: RayrunLog;
}

/** \`continue\` with upstream arguments, \`reject\` the call, or require one-call \`approval\`. */
type RayrunBeforeOutcome =
  | { action: "continue"; arguments: Args }
  | { action: "reject"; reason: string; message: string }
  | { action: "approval"; arguments: Args; reason: string };

/** \`return\` a (transformed) result, or \`fail\` the call. */
type RayrunAfterOutcome<R> =
  | { action: "return"; result: R }
  | { action: "fail"; reason: string; message: string };

/**
 * \`A\`: the arguments \`before\` receives (the public ones; the upstream \`Args\`
 * unless publicContract changes them). \`R\`: the result \`after\` receives and returns.
 */
interface RayrunToolAdapter<A = Args, R = Result> {
  apiVersion: "rayrun.hooks/v1";
  publicContract?: RayrunPublicContract;
  before?(input: { arguments: A; context: RayrunToolCallContext }): RayrunBeforeOutcome | Promise<RayrunBeforeOutcome>;
  after?(input: { result: R; context: RayrunToolCallContext }): RayrunAfterOutcome<R> | Promise<RayrunAfterOutcome<R>>;
}

/** Declares the tool adapter; use as \`export default defineToolAdapter({ … })\`. */
declare function defineToolAdapter<A = Args, R = Result>(definition: RayrunToolAdapter<A, R>): RayrunToolAdapter<A, R>;
`;

/** Generated declarations for the adapter of one tool, as `.d.ts` text. */
export function generateAdapterTypes(input: AdapterTypesInput): string {
  const tool = docText(input.toolName);
  const args = schemaToTypeDeclarations(
    input.inputSchema,
    "Args",
    `Arguments of the upstream tool "${tool}" (from its input schema).`,
    RESERVED,
  );
  const result =
    input.outputSchema === undefined
      ? CONTENT_RESULT
      : schemaToTypeDeclarations(
          input.outputSchema,
          "Result",
          `What \`after\` receives: the structuredContent of "${tool}" (from its output schema).`,
          RESERVED,
        );
  const header = `// Declarations for the tool adapter of "${tool}", generated from its current upstream schemas.`;
  return `${header}\n\n${args}\n\n${result}\n\n${AMBIENT}`;
}
