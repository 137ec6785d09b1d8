// D1 tables of the MCP gateway's policy: access profiles and the profile each
// key names, per-tool gateway settings (risk, response projection), encrypted
// workspace secrets and one-call approvals. Documented in docs/storage.md.
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { workspaceRef } from "./columns";
import { apiKeys } from "./schema-workspaces";

export const RISK_LEVELS = ["low", "medium", "high"] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

/** Allowed and blocked tools and the approval risk threshold of one named profile. */
export const accessProfiles = sqliteTable(
  "access_profiles",
  {
    workspaceUid: workspaceRef(),
    name: text("name").notNull(),
    /** JSON array of public tool names or tool uids; null = every tool. */
    allowedTools: text("allowed_tools", { mode: "json" }).$type<string[]>(),
    /** JSON array of public tool names or tool uids. */
    blockedTools: text("blocked_tools", { mode: "json" }).$type<string[]>().notNull(),
    /** Calls to tools at or above this risk need a one-call approval; null = never. */
    approvalRisk: text("approval_risk", { enum: RISK_LEVELS }),
    updatedBy: text("updated_by").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspaceUid, t.name] })],
);

/** The access profile a key names (keys without a row use "default"). Immutable per key. */
export const apiKeyProfiles = sqliteTable("api_key_profiles", {
  keyId: text("key_id")
    .primaryKey()
    .references(() => apiKeys.id),
  workspaceUid: workspaceRef(),
  profile: text("profile").notNull(),
});

/** Gateway settings of one tool; absent row = medium risk, no projection. */
export const toolGatewaySettings = sqliteTable("tool_gateway_settings", {
  toolUid: text("tool_uid").primaryKey(),
  workspaceUid: workspaceRef(),
  risk: text("risk", { enum: RISK_LEVELS }),
  /** JSON array of JSON pointers kept from `structuredContent`; null = the whole result. */
  projection: text("projection", { mode: "json" }).$type<string[]>(),
  updatedBy: text("updated_by").notNull(),
  updatedAt: text("updated_at").notNull(),
});

/** Write-only workspace secrets, AES-GCM encrypted (see shared/secrets). */
export const workspaceSecrets = sqliteTable(
  "workspace_secrets",
  {
    workspaceUid: workspaceRef(),
    name: text("name").notNull(),
    /** base64 of AES-256-GCM ciphertext + tag; AAD binds it to workspace and name. */
    ciphertext: text("ciphertext").notNull(),
    /** base64 of the 12-byte nonce. */
    iv: text("iv").notNull(),
    /** Version of the key derivation, for rotation. */
    keyVersion: integer("key_version").notNull(),
    updatedBy: text("updated_by").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspaceUid, t.name] })],
);

export const APPROVAL_STATUSES = ["pending", "approved", "denied", "used"] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/**
 * One-call approvals. The stored call (transformed arguments) is what gets
 * dispatched, once, and only while the bound active revision is still active.
 */
export const approvals = sqliteTable(
  "approvals",
  {
    id: text("id").primaryKey(),
    workspaceUid: workspaceRef(),
    toolUid: text("tool_uid").notNull(),
    toolName: text("tool_name").notNull(),
    /** Active revision whose `before` produced the call; null when no adapter was active. */
    revisionId: text("revision_id"),
    /**
     * `hook` (the adapter asked), `risk` (the key's access profile asked) or
     * `host_call` (a request hook's loop policy asked for one of its host calls;
     * `tool_uid` is then `host:lambda:<source>` or `host:model`).
     */
    source: text("source", { enum: ["hook", "risk", "host_call"] }).notNull(),
    reason: text("reason").notNull(),
    /** JSON text of the transformed arguments that will be dispatched. */
    arguments: text("arguments").notNull(),
    /** SHA-256 of the canonical transformed call `{ tool, arguments }`. */
    callHash: text("call_hash").notNull(),
    /** SHA-256 of the canonical public call `{ tool, arguments }` the client sent. */
    publicHash: text("public_hash").notNull(),
    /** The key that asked; only it may use the approval. */
    keyId: text("key_id").notNull(),
    actor: text("actor").notNull(),
    requestId: text("request_id").notNull(),
    status: text("status", { enum: APPROVAL_STATUSES }).notNull(),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at").notNull(),
    decidedBy: text("decided_by"),
    decidedAt: text("decided_at"),
    usedAt: text("used_at"),
  },
  (t) => [index("approvals_workspace_status").on(t.workspaceUid, t.status, t.id)],
);
