// The demo upstream's resources, resource template, prompt and completions,
// so the gateway's pass-through of them is tested against the official SDK.
// `tag` marks every answer with the upstream's id, so a test that registers
// two of them as two services can tell which one answered.
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SubscribeRequestSchema, UnsubscribeRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

export interface ExtrasState {
  /** Every resources/subscribe and /unsubscribe URI, in order, prefixed with the method's last word. */
  subscriptions: string[];
}

export const EXTRAS_CAPABILITIES = { resources: { subscribe: true } } as const;

export function registerExtras(server: McpServer, tag: string, state: ExtrasState): void {
  server.registerResource("readme", "demo://readme", { title: "Read me", mimeType: "text/plain" }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: "text/plain", text: `readme of ${tag}` }],
  }));
  server.registerResource(
    "note",
    new ResourceTemplate("demo://notes/{id}", {
      list: undefined,
      complete: { id: (value) => ["alpha", "beta", "gamma"].filter((id) => id.startsWith(value)) },
    }),
    { mimeType: "text/plain" },
    (uri, { id }) => ({ contents: [{ uri: uri.href, text: `note ${String(id)} of ${tag}` }] }),
  );
  server.registerPrompt(
    "summarise",
    {
      title: "Summarise",
      description: "Summarise a topic",
      argsSchema: { topic: z.string() },
    },
    ({ topic }) => ({
      messages: [{ role: "user", content: { type: "text", text: `summarise ${topic} (${tag})` } }],
    }),
  );
  server.server.setRequestHandler(SubscribeRequestSchema, (request) => {
    state.subscriptions.push(`subscribe ${request.params.uri}`);
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    state.subscriptions.push(`unsubscribe ${request.params.uri}`);
    return {};
  });
}
