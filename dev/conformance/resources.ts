// Resources, a resource template and subscriptions for the resources-*
// scenarios. McpServer has no subscription support, so resources/subscribe and
// resources/unsubscribe are plain request handlers on the underlying Server.
import { ResourceTemplate, type McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SubscribeRequestSchema, UnsubscribeRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { RED_PIXEL_PNG } from "./fixtures.ts";

const WATCHED_URI = "test://watched-resource";

/**
 * Delay between a subscribe and the `notifications/resources/updated` it
 * provokes: the notification is meant for the session's GET stream, after the
 * subscribe response, like a real change would be.
 */
const UPDATE_DELAY_MS = 100;

export function registerResources(mcp: McpServer): void {
  mcp.registerResource(
    "static-text",
    "test://static-text",
    { description: "A static text resource", mimeType: "text/plain" },
    (uri) => ({
      contents: [
        { uri: uri.href, mimeType: "text/plain", text: "This is the content of the static text resource." },
      ],
    }),
  );

  mcp.registerResource(
    "static-binary",
    "test://static-binary",
    { description: "A static binary resource (PNG image)", mimeType: "image/png" },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: "image/png", blob: RED_PIXEL_PNG }] }),
  );

  mcp.registerResource(
    "template-data",
    new ResourceTemplate("test://template/{id}/data", {
      list: undefined,
      complete: { id: (value) => ["123", "456", "789"].filter((id) => id.startsWith(value)) },
    }),
    { description: "Data for an id, substituted into the URI", mimeType: "application/json" },
    (uri, { id }) => {
      const value = Array.isArray(id) ? id.join(",") : id;
      return {
        contents: [
          {
            uri: uri.href,
            mimeType: "application/json",
            text: JSON.stringify({ id: value, templateTest: true, data: `Data for ID: ${value}` }),
          },
        ],
      };
    },
  );

  // Subscriptions belong to this session's server, so one client's
  // subscriptions never reach another client.
  const subscriptions = new Set<string>();
  let revision = 0;

  mcp.registerResource(
    "watched-resource",
    WATCHED_URI,
    { description: "A resource that changes when subscribed to", mimeType: "text/plain" },
    (uri) => ({
      contents: [{ uri: uri.href, mimeType: "text/plain", text: `Watched resource, revision ${revision}` }],
    }),
  );

  mcp.server.setRequestHandler(SubscribeRequestSchema, ({ params: { uri } }) => {
    subscriptions.add(uri);
    if (uri === WATCHED_URI) {
      // Simulate a change so a subscriber (and any gateway in between) has an
      // update notification to observe; skipped if already unsubscribed.
      setTimeout(() => {
        if (!subscriptions.has(uri) || !mcp.isConnected()) return;
        revision += 1;
        mcp.server.sendResourceUpdated({ uri }).catch(() => {
          // The session went away meanwhile: nobody left to notify.
        });
      }, UPDATE_DELAY_MS);
    }
    return {};
  });

  mcp.server.setRequestHandler(UnsubscribeRequestSchema, ({ params: { uri } }) => {
    subscriptions.delete(uri);
    return {};
  });
}
