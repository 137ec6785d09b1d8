// Tool schemas the docs' adapters are written for, shared by the workerd tests
// and the Node type check (no Worker imports here). The demo upstream's are
// checked against what it really lists (adapters.test.ts), so the type check
// cannot drift from it.
import type { JsonObject } from "../../shared/json";

/** A tool's upstream schemas, as the gateway validates against them and the editor types them. */
export interface ToolSchemas {
  name: string;
  inputSchema?: JsonObject;
  outputSchema?: JsonObject;
}

const DRAFT_07 = "http://json-schema.org/draft-07/schema#";

/** The demo upstream's tools the docs adapt, as `GET …/tools/{tool}` shows them once indexed. */
export const DEMO_TOOLS = {
  search_release_notes: {
    name: "search_release_notes",
    inputSchema: {
      type: "object",
      properties: { q: { type: "string" } },
      required: ["q"],
      $schema: DRAFT_07,
    },
    outputSchema: {
      type: "object",
      properties: {
        items: {
          type: "array",
          items: {
            type: "object",
            properties: { title: { type: "string" }, score: { type: "number" } },
            required: ["title", "score"],
            additionalProperties: false,
          },
        },
      },
      required: ["items"],
      $schema: DRAFT_07,
      additionalProperties: false,
    },
  },
  echo: {
    name: "echo",
    inputSchema: {
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
      $schema: DRAFT_07,
    },
  },
} as const satisfies Record<string, ToolSchemas>;

/** The upload tool encoding.ts is written for: takes `{ name, contentBase64 }`, returns a base64 `preview`. */
export const UPLOAD_TOOL: ToolSchemas = {
  name: "upload_file",
  inputSchema: {
    type: "object",
    properties: { name: { type: "string" }, contentBase64: { type: "string" } },
    required: ["name", "contentBase64"],
    additionalProperties: false,
  },
  outputSchema: {
    type: "object",
    properties: { id: { type: "string" }, preview: { type: "string" } },
    required: ["id", "preview"],
  },
};

/** The tool each adapter snippet is written for. */
export const ADAPTER_TOOLS: Record<string, ToolSchemas> = {
  "adapters/search.ts": DEMO_TOOLS.search_release_notes,
  "adapters/fail.ts": DEMO_TOOLS.search_release_notes,
  "adapters/approval.ts": DEMO_TOOLS.echo,
  "adapters/redact.ts": DEMO_TOOLS.echo,
  "adapters/context.ts": DEMO_TOOLS.echo,
  "adapters/refused.ts": DEMO_TOOLS.echo,
  "adapters/encoding.ts": UPLOAD_TOOL,
};
