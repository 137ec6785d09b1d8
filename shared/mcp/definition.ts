// The identity of an upstream tool definition: what a changed-definition
// review compares and what a deployment records it was compiled against.
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ToolDefinition, ToolListing } from "../db/schema-services";
import { canonicalJson, sha256Hex } from "../canonical-json";

/** The hashed fields of a `tools/list` entry; other fields (title, annotations, icons) are not part of it. */
export function toolDefinition(tool: Tool): ToolDefinition {
  const definition: ToolDefinition = { name: tool.name, inputSchema: { ...tool.inputSchema } };
  if (tool.description !== undefined) definition.description = tool.description;
  if (tool.outputSchema !== undefined) definition.outputSchema = { ...tool.outputSchema };
  return definition;
}

/** Lower-case hex SHA-256 of the canonical JSON of `{ name, description, inputSchema, outputSchema }`. */
export function definitionHash(definition: ToolDefinition): Promise<string> {
  const { name, description, inputSchema, outputSchema } = definition;
  return sha256Hex(canonicalJson({ name, description, inputSchema, outputSchema }));
}

/** UTF-8 size of a definition's JSON text (definitions are stored whole in one D1 row). */
export const definitionBytes = (definition: ToolDefinition): number =>
  new TextEncoder().encode(JSON.stringify(definition)).byteLength;

/** The fields of a `tools/list` entry outside its definition, or null when it has none. */
export function toolListing(tool: Tool): ToolListing | null {
  const listing: ToolListing = {};
  if (tool.title !== undefined) listing.title = tool.title;
  if (tool.annotations !== undefined) listing.annotations = { ...tool.annotations };
  if (tool.execution !== undefined) listing.execution = { ...tool.execution };
  if (tool.icons !== undefined) listing.icons = [...tool.icons];
  if (tool._meta !== undefined) listing._meta = { ...tool._meta };
  return Object.keys(listing).length === 0 ? null : listing;
}
