// Access profiles: which tools a key may call and which calls need a one-call
// approval because of the tool's risk. The "default" profile is the workspace's
// own policy: it applies to every key, and a named profile can only narrow it.
// A hook never sees or changes this decision.
import { and, eq, inArray } from "drizzle-orm";
import { database } from "../db/client";
import { accessProfiles, apiKeyProfiles, type RiskLevel, type ToolListing } from "../db/schema";
import { err, ok, type Result } from "../result";

export const DEFAULT_PROFILE = "default";
export const PROFILE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** A tool without a stored risk is treated as this (unless its upstream marks it destructive). */
export const DEFAULT_TOOL_RISK: RiskLevel = "medium";

/**
 * A tool's risk when its gateway settings name none: high when the upstream
 * marks it destructive (MCP `annotations.destructiveHint`), else the default.
 */
export function defaultRisk(tool: { listing: ToolListing | null }): RiskLevel {
  return tool.listing?.annotations?.destructiveHint === true ? "high" : DEFAULT_TOOL_RISK;
}
/** Entries in one profile's allowed or blocked list. */
export const PROFILE_LIST_MAX = 500;

const RISK_RANK: Record<RiskLevel, number> = { low: 0, medium: 1, high: 2 };

export interface AccessProfile {
  name: string;
  /** Public names or tool uids; null = every tool. */
  allowedTools: readonly string[] | null;
  blockedTools: readonly string[];
  approvalRisk: RiskLevel | null;
}

export const openProfile = (name: string): AccessProfile => ({
  name,
  allowedTools: null,
  blockedTools: [],
  approvalRisk: null,
});

export interface AccessTool {
  uid: string;
  publicName: string;
  risk: RiskLevel;
}

export type AccessRefusalReason = "tool_blocked" | "not_allowed" | "profile_missing";

/** A call the profiles allow but whose risk needs a one-call approval: the strictest threshold and its profile. */
export interface AccessApproval {
  risk: RiskLevel;
  threshold: RiskLevel;
  profile: string;
}

export interface AccessRefusal {
  code: "access_blocked";
  reason: AccessRefusalReason;
  message: string;
}

/** Allowed (with the approval its risk needs, or null), or refused. */
export type AccessDecision = Result<AccessApproval | null, AccessRefusal>;

const names = (tool: AccessTool, list: readonly string[]) =>
  list.includes(tool.uid) || list.includes(tool.publicName);

/**
 * The access decision for one tool. `workspace` is the "default" profile (open
 * when never written); `key` is the key's own profile, the same object when the
 * key names "default", or null when the profile it names does not exist (fail closed).
 */
export function decideAccess(
  tool: AccessTool,
  workspace: AccessProfile,
  key: AccessProfile | null,
  keyProfileName: string,
): AccessDecision {
  if (key === null) {
    return err({
      code: "access_blocked",
      reason: "profile_missing",
      message: `The key's access profile ${keyProfileName} does not exist.`,
    });
  }
  const profiles = key === workspace ? [workspace] : [workspace, key];
  for (const profile of profiles) {
    if (names(tool, profile.blockedTools)) {
      return err({
        code: "access_blocked",
        reason: "tool_blocked",
        message: `Tool ${tool.publicName} is blocked by access profile ${profile.name}.`,
      });
    }
    if (profile.allowedTools !== null && !names(tool, profile.allowedTools)) {
      return err({
        code: "access_blocked",
        reason: "not_allowed",
        message: `Tool ${tool.publicName} is not allowed by access profile ${profile.name}.`,
      });
    }
  }
  // The strictest threshold of the profiles in force.
  let approval: AccessApproval | null = null;
  for (const profile of profiles) {
    const threshold = profile.approvalRisk;
    if (threshold === null || RISK_RANK[tool.risk] < RISK_RANK[threshold]) continue;
    if (approval === null || RISK_RANK[threshold] < RISK_RANK[approval.threshold]) {
      approval = { risk: tool.risk, threshold, profile: profile.name };
    }
  }
  return ok(approval);
}

type ProfileRow = typeof accessProfiles.$inferSelect;

export const profileFromRow = (row: ProfileRow): AccessProfile => ({
  name: row.name,
  allowedTools: row.allowedTools,
  blockedTools: row.blockedTools,
  approvalRisk: row.approvalRisk,
});

/** The query for the workspace profile and the key's (one statement, for batching). */
export function profilesQuery(db: D1Database, workspaceUid: string, profile: string) {
  return database(db)
    .select()
    .from(accessProfiles)
    .where(
      and(
        eq(accessProfiles.workspaceUid, workspaceUid),
        inArray(accessProfiles.name, [...new Set([DEFAULT_PROFILE, profile])]),
      ),
    );
}

/** The workspace ("default") profile and the key's profile from the rows `profilesQuery` returned. */
export function profilesFromRows(
  rows: readonly ProfileRow[],
  profile: string,
): { workspace: AccessProfile; key: AccessProfile | null } {
  const byName = new Map(rows.map((row) => [row.name, profileFromRow(row)]));
  const workspace = byName.get(DEFAULT_PROFILE) ?? openProfile(DEFAULT_PROFILE);
  const key = profile === DEFAULT_PROFILE ? workspace : (byName.get(profile) ?? null);
  return { workspace, key };
}

/** The profile a key names ("default" when it names none). */
export async function keyProfile(db: D1Database, keyId: string): Promise<string> {
  const row = await database(db)
    .select({ profile: apiKeyProfiles.profile })
    .from(apiKeyProfiles)
    .where(eq(apiKeyProfiles.keyId, keyId))
    .get();
  return row?.profile ?? DEFAULT_PROFILE;
}

export async function profileExists(db: D1Database, workspaceUid: string, name: string): Promise<boolean> {
  if (name === DEFAULT_PROFILE) return true;
  const row = await database(db)
    .select({ name: accessProfiles.name })
    .from(accessProfiles)
    .where(and(eq(accessProfiles.workspaceUid, workspaceUid), eq(accessProfiles.name, name)))
    .get();
  return row !== undefined;
}
