// The tools the conformance scenarios call, named and shaped as the suite
// expects (`@modelcontextprotocol/conformance`, server scenarios). Several of
// them talk back to the client *during* the call (logs, progress, sampling,
// elicitation, stream closing), which is what a gateway in front of this server
// must carry on the POST's SSE stream.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type {
  CallToolResult,
  ElicitRequestFormParams,
  LoggingLevel,
  ServerNotification,
  ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { RED_PIXEL_PNG, SILENT_WAV, sleep } from "./fixtures.ts";

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Decides whether a log message passes the level the client chose with logging/setLevel. */
export type LogFilter = (level: LoggingLevel) => boolean;

/**
 * How long test_reconnection keeps the call open after closing its stream: a
 * little longer than the `retry` hint in main.ts, so a client honouring it has
 * reconnected (with Last-Event-ID) by the time the result exists.
 */
const RECONNECTION_DELAY_MS = 300;

const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });

// The spec's example schema for json_schema_2020_12_tool (SEP-1613). The SDK
// renders zod input schemas as draft-07, which would turn `$defs` into
// `definitions` and rewrite `$schema`; `.meta()` keys are merged over that
// rendering, so the listing carries this document verbatim while zod still
// validates the arguments of a call.
const JSON_SCHEMA_2020_12 = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: {
    address: {
      type: "object",
      properties: { street: { type: "string" }, city: { type: "string" } },
    },
  },
  properties: { name: { type: "string" }, address: { $ref: "#/$defs/address" } },
  additionalProperties: false,
};
const jsonSchema2020Input = z
  .object({
    name: z.string().optional(),
    address: z.object({ street: z.string().optional(), city: z.string().optional() }).optional(),
  })
  .strict()
  .meta(JSON_SCHEMA_2020_12);

// elicitation-sep1034-defaults: every primitive type, each with a default.
const DEFAULTS_SCHEMA: ElicitRequestFormParams["requestedSchema"] = {
  type: "object",
  properties: {
    name: { type: "string", description: "Your name", default: "John Doe" },
    age: { type: "integer", description: "Your age", default: 30 },
    score: { type: "number", description: "Your score", default: 95.5 },
    status: {
      type: "string",
      description: "Account status",
      enum: ["active", "inactive", "pending"],
      default: "active",
    },
    verified: { type: "boolean", description: "Verified account", default: true },
  },
};

// elicitation-sep1330-enums: the five enum shapes of SEP-1330, one field each.
const ENUMS_SCHEMA: ElicitRequestFormParams["requestedSchema"] = {
  type: "object",
  properties: {
    untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
    titledSingle: {
      type: "string",
      oneOf: [
        { const: "value1", title: "First Option" },
        { const: "value2", title: "Second Option" },
        { const: "value3", title: "Third Option" },
      ],
    },
    legacyEnum: {
      type: "string",
      enum: ["opt1", "opt2", "opt3"],
      enumNames: ["Option One", "Option Two", "Option Three"],
    },
    untitledMulti: { type: "array", items: { type: "string", enum: ["option1", "option2", "option3"] } },
    titledMulti: {
      type: "array",
      items: {
        anyOf: [
          { const: "value1", title: "First Choice" },
          { const: "value2", title: "Second Choice" },
          { const: "value3", title: "Third Choice" },
        ],
      },
    },
  },
};

export function registerTools(mcp: McpServer, logAllows: LogFilter): void {
  // Requests to the client carry the tool call's id, so they travel on that
  // call's SSE stream (not the session's GET stream) and the client can tell
  // which call wants the answer.
  const elicit = async (
    extra: Extra,
    message: string,
    requestedSchema: ElicitRequestFormParams["requestedSchema"],
  ): Promise<string> => {
    if (!mcp.server.getClientCapabilities()?.elicitation) {
      throw new Error("Client does not support elicitation");
    }
    const result = await mcp.server.elicitInput(
      { message, requestedSchema },
      { relatedRequestId: extra.requestId },
    );
    return `action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
  };

  mcp.registerTool("test_simple_text", { description: "Returns a simple text response" }, () =>
    text("This is a simple text response for testing."),
  );

  mcp.registerTool("test_image_content", { description: "Returns a PNG image" }, () => ({
    content: [{ type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" }],
  }));

  mcp.registerTool("test_audio_content", { description: "Returns a WAV audio clip" }, () => ({
    content: [{ type: "audio", data: SILENT_WAV, mimeType: "audio/wav" }],
  }));

  mcp.registerTool("test_embedded_resource", { description: "Returns an embedded text resource" }, () => ({
    content: [
      {
        type: "resource",
        resource: {
          uri: "test://embedded-resource",
          mimeType: "text/plain",
          text: "This is an embedded resource content.",
        },
      },
    ],
  }));

  mcp.registerTool(
    "test_multiple_content_types",
    { description: "Returns text, image and resource content in one result" },
    () => ({
      content: [
        { type: "text", text: "Multiple content types test:" },
        { type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" },
        {
          type: "resource",
          resource: {
            uri: "test://mixed-content-resource",
            mimeType: "application/json",
            text: JSON.stringify({ test: "data", value: 123 }),
          },
        },
      ],
    }),
  );

  mcp.registerTool(
    "test_tool_with_logging",
    { description: "Sends three info log notifications while it runs" },
    async (extra) => {
      // Sent on the call's stream, spaced out, so the client sees them arrive
      // before the result rather than batched with it.
      const steps = ["Tool execution started", "Tool processing data", "Tool execution completed"];
      for (const [index, data] of steps.entries()) {
        if (index > 0) await sleep(50);
        if (logAllows("info")) {
          await extra.sendNotification({
            method: "notifications/message",
            params: { level: "info", logger: "test_tool_with_logging", data },
          });
        }
      }
      return text("Tool with logging executed successfully");
    },
  );

  mcp.registerTool(
    "test_error_handling",
    { description: "Always fails (the SDK turns the throw into an isError result)" },
    () => {
      throw new Error("This tool intentionally returns an error for testing");
    },
  );

  mcp.registerTool(
    "test_tool_with_progress",
    { description: "Reports progress 0, 50 and 100 out of 100 while it runs" },
    async (extra) => {
      const progressToken = extra._meta?.progressToken;
      for (const progress of [0, 50, 100]) {
        if (progress > 0) await sleep(50);
        if (progressToken !== undefined) {
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken, progress, total: 100, message: `Completed step ${progress}/100` },
          });
        }
      }
      return text("Tool with progress executed successfully");
    },
  );

  mcp.registerTool(
    "test_sampling",
    {
      description: "Asks the client's LLM (sampling/createMessage) and returns its answer",
      inputSchema: { prompt: z.string().describe("The prompt to send to the LLM") },
    },
    async ({ prompt }, extra) => {
      if (!mcp.server.getClientCapabilities()?.sampling) {
        throw new Error("Client does not support sampling");
      }
      const result = await mcp.server.createMessage(
        { messages: [{ role: "user", content: { type: "text", text: prompt } }], maxTokens: 100 },
        { relatedRequestId: extra.requestId },
      );
      const answer = result.content.type === "text" ? result.content.text : `[${result.content.type}]`;
      return text(`LLM response: ${answer}`);
    },
  );

  mcp.registerTool(
    "test_elicitation",
    {
      description: "Asks the user (elicitation/create) for a username and an email",
      inputSchema: { message: z.string().describe("The message to show the user") },
    },
    async ({ message }, extra) => {
      const answer = await elicit(extra, message, {
        type: "object",
        properties: {
          username: { type: "string", description: "User's response" },
          email: { type: "string", description: "User's email address" },
        },
        required: ["username", "email"],
      });
      return text(`User response: ${answer}`);
    },
  );

  mcp.registerTool(
    "test_elicitation_sep1034_defaults",
    { description: "Elicits a form whose fields all carry default values (SEP-1034)" },
    async (extra) =>
      text(`Elicitation completed: ${await elicit(extra, "Please review your details", DEFAULTS_SCHEMA)}`),
  );

  mcp.registerTool(
    "test_elicitation_sep1330_enums",
    { description: "Elicits a form with every enum variant (SEP-1330)" },
    async (extra) =>
      text(`Elicitation completed: ${await elicit(extra, "Please choose your options", ENUMS_SCHEMA)}`),
  );

  mcp.registerTool(
    "json_schema_2020_12_tool",
    { description: "Tool with JSON Schema 2020-12 features", inputSchema: jsonSchema2020Input },
    (args) => text(`Received: ${JSON.stringify(args)}`),
  );

  mcp.registerTool(
    "test_reconnection",
    { description: "Closes its SSE stream mid-call, then answers; the client must resume (SEP-1699)" },
    async (extra) => {
      // Only offered by the transport when the stream is resumable (event
      // store configured, priming event sent); otherwise answer in place.
      extra.closeSSEStream?.();
      await sleep(RECONNECTION_DELAY_MS);
      return text("Reconnection test completed successfully");
    },
  );
}
