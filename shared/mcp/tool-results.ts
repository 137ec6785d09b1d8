// Tool results on the MCP path: what `after` sees, how its return replaces the result, response
// projection, and the shape of every tool-level refusal.
import { ContentBlockSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { isJsonObject, type Json, type JsonObject } from "../json";

/** The `_meta` key that carries a refusal's stable code. */
export const ERROR_META_KEY = "rayrun/error";

export interface RefusalMeta {
  code: string;
  reason?: string;
  message: string;
  approvalId?: string;
}

/** No lease on the workspace's view and no answer from its home: the call is refused before anything runs. */
export const WORKSPACE_UNAVAILABLE: RefusalMeta = {
  code: "workspace_unavailable",
  message:
    "The workspace's current deployments and keys could not be confirmed; nothing was sent. Retry shortly.",
};

/** A tool-level refusal: an error result the model can read, with a stable code for programs. */
export function refusal(meta: RefusalMeta): CallToolResult {
  return {
    isError: true,
    content: [{ type: "text", text: meta.message }],
    _meta: { [ERROR_META_KEY]: { ...meta } },
  };
}

/**
 * A value that arrived in a JSON-RPC message as JSON. The SDK types such values
 * as `unknown`; they were parsed from JSON text, so they are JSON.
 */
export const parsedJson = (value: unknown): Json => value as Json;

/** `after`'s `result`: the upstream's structuredContent when it has one, else `{ content }`. */
export function afterInput(result: CallToolResult): Json {
  if (result.structuredContent !== undefined) return parsedJson(result.structuredContent);
  return { content: parsedJson(result.content) };
}

const textOf = (value: Json) => [{ type: "text" as const, text: JSON.stringify(value) }];

const ContentList = ContentBlockSchema.array();

/**
 * The result after `after` returned `value` in the place of `afterInput(upstream)`:
 * a replaced structuredContent regenerates the text content; without one, a
 * returned `{ content }` replaces the content (null when those are not valid MCP
 * content blocks), anything else becomes structuredContent.
 */
export function replaceResult(upstream: CallToolResult, value: Json): CallToolResult | null {
  const base: CallToolResult = { content: [] };
  const meta = upstream._meta;
  if (meta !== undefined) base._meta = meta;
  if (upstream.structuredContent === undefined && isJsonObject(value) && Array.isArray(value.content)) {
    const content = ContentList.safeParse(value.content);
    return content.success ? { ...base, content: content.data } : null;
  }
  return {
    ...base,
    content: textOf(value),
    ...(isJsonObject(value) ? { structuredContent: value } : {}),
  };
}

function parsePointer(pointer: string): string[] | null {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) return null;
  return pointer
    .slice(1)
    .split("/")
    .map((segment) => segment.replaceAll("~1", "/").replaceAll("~0", "~"));
}

export const isJsonPointer = (pointer: string): boolean => parsePointer(pointer) !== null;

function childOf(value: Json, segment: string): Json | undefined {
  if (Array.isArray(value)) return /^(0|[1-9]\d*)$/.test(segment) ? value[Number(segment)] : undefined;
  if (isJsonObject(value) && Object.hasOwn(value, segment)) return value[segment];
  return undefined;
}

function setChild(container: JsonObject | Json[], segment: string, child: Json): void {
  if (Array.isArray(container)) container[Number(segment)] = child;
  // A plain assignment to "__proto__" would swap the prototype instead of adding the member.
  else
    Object.defineProperty(container, segment, {
      value: child,
      enumerable: true,
      writable: true,
      configurable: true,
    });
}

/**
 * Keeps only the members the pointers address (missing ones are skipped). Array
 * elements keep their index. The root pointer "" keeps everything.
 */
export function projectValue(value: JsonObject, pointers: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const pointer of pointers) {
    const path = parsePointer(pointer);
    if (path === null) continue;
    if (path.length === 0) return value;
    // The values along the path; skipped when any is missing.
    const chain: Json[] = [];
    let source: Json | undefined = value;
    for (const segment of path) {
      source = source === undefined ? undefined : childOf(source, segment);
      if (source === undefined) break;
      chain.push(source);
    }
    if (chain.length < path.length) continue;
    // Copy along the path, creating containers of the source's kind.
    let target: JsonObject | Json[] = out;
    for (const [depth, segment] of path.entries()) {
      const child = chain[depth] ?? null;
      if (depth === path.length - 1) {
        setChild(target, segment, child);
        break;
      }
      const existing = childOf(target, segment);
      const next: JsonObject | Json[] =
        existing !== undefined && existing !== null && typeof existing === "object"
          ? existing
          : Array.isArray(child)
            ? []
            : {};
      setChild(target, segment, next);
      target = next;
    }
  }
  return out;
}

/** The configured response projection applied to a result's structuredContent (text regenerated). */
export function projectResult(result: CallToolResult, pointers: readonly string[] | null): CallToolResult {
  if (pointers === null || result.structuredContent === undefined) return result;
  const structured = parsedJson(result.structuredContent);
  if (!isJsonObject(structured)) return result;
  const projected = projectValue(structured, pointers);
  return { ...result, structuredContent: projected, content: textOf(projected) };
}
