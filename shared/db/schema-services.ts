// Upstream MCP servers ("services") and the tools indexed from their `tools/list`.
// Documented in docs/storage.md.
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { workspaceRef } from "./columns";

const timestamp = (name: string) =>
  text(name)
    .notNull()
    .default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`);

/** The part of an upstream tool definition that its definition hash covers. */
export interface ToolDefinition {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

/**
 * What an upstream's `tools/list` says about a tool beside its definition:
 * passed through to clients as listed (a public contract never replaces it),
 * outside the definition hash, so a change needs no review.
 */
export interface ToolListing {
  title?: string;
  annotations?: Record<string, unknown>;
  execution?: Record<string, unknown>;
  icons?: unknown[];
  _meta?: Record<string, unknown>;
}

/** The part of an upstream's server capabilities the gateway passes through. */
export interface UpstreamCapabilities {
  resources?: { subscribe?: boolean; listChanged?: boolean };
  prompts?: { listChanged?: boolean };
  completions?: Record<string, never>;
  logging?: Record<string, never>;
}

export const REVIEW_STATES = ["accepted", "review_required"] as const;
export type ReviewState = (typeof REVIEW_STATES)[number];

export const services = sqliteTable(
  "services",
  {
    uid: text("uid").primaryKey(),
    workspaceUid: workspaceRef(),
    /** Unique among the workspace's live services; prefixes colliding tool names. */
    name: text("name").notNull(),
    url: text("url").notNull(),
    payloadCapture: integer("payload_capture", { mode: "boolean" }).notNull().default(false),
    /** Name of the workspace secret sent as the upstream's bearer token (never the secret itself). */
    authorizationSecret: text("authorization_secret"),
    /** Bound on one upstream tools/call in ms; null: the default (LIMITS.upstreamTimeoutMs). */
    timeoutMs: integer("timeout_ms"),
    /**
     * What the upstream's \`initialize\` offered beside tools (resources, prompts,
     * completions, logging), read at every index; null before the first one.
     */
    capabilities: text("capabilities", { mode: "json" }).$type<UpstreamCapabilities>(),
    /** Deleted before deletion required an empty hook history: history-only, reset is its only write. */
    legacy: integer("legacy", { mode: "boolean" }).notNull().default(false),
    createdBy: text("created_by").notNull(),
    createdAt: timestamp("created_at"),
    refreshedAt: text("refreshed_at"),
    deletedAt: text("deleted_at"),
    deletedBy: text("deleted_by"),
  },
  (t) => [
    index("services_workspace").on(t.workspaceUid),
    uniqueIndex("services_live_name")
      .on(t.workspaceUid, t.name)
      .where(sql`${t.deletedAt} is null`),
  ],
);

export const tools = sqliteTable(
  "tools",
  {
    uid: text("uid").primaryKey(),
    workspaceUid: workspaceRef(),
    serviceUid: text("service_uid")
      .notNull()
      .references(() => services.uid),
    upstreamName: text("upstream_name").notNull(),
    /** Name clients see; null while the tool is removed upstream or its service is deleted. */
    publicName: text("public_name"),
    /** The accepted definition (what hooks compile against and the gateway enforces). */
    description: text("description"),
    inputSchema: text("input_schema", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    outputSchema: text("output_schema", { mode: "json" }).$type<Record<string, unknown>>(),
    definitionHash: text("definition_hash").notNull(),
    /** The upstream's latest title, annotations, execution, icons and `_meta`; null when it lists none. */
    listing: text("listing", { mode: "json" }).$type<ToolListing>(),
    reviewState: text("review_state", { enum: REVIEW_STATES }).notNull().default("accepted"),
    /** The changed upstream definition awaiting review, and its hash. */
    pendingHash: text("pending_hash"),
    pendingDefinition: text("pending_definition", { mode: "json" }).$type<ToolDefinition>(),
    createdAt: timestamp("created_at"),
    updatedAt: timestamp("updated_at"),
    acceptedBy: text("accepted_by"),
    acceptedAt: text("accepted_at"),
    /** Set while the upstream's `tools/list` no longer lists the tool. */
    removedAt: text("removed_at"),
  },
  (t) => [
    uniqueIndex("tools_service_upstream_name").on(t.serviceUid, t.upstreamName),
    index("tools_workspace").on(t.workspaceUid),
  ],
);
