// Tool rows as the tool routes page and review them.
import { and, desc, eq, lt } from "drizzle-orm";
import type { Database } from "../../../shared/db/client";
import { services, tools } from "../../../shared/db/schema";
import { liveService, type ToolRow } from "../../../shared/services/store";

/**
 * Tools of live services, newest first, after the tool `after` (a tool uid). Tools
 * removed upstream stay listed (with `removedAt`) for their hook history; a
 * deleted service's tools are shown only by its history view.
 */
export const listLiveTools = (
  db: Database,
  workspaceUid: string,
  page: { service?: string; after?: string; limit: number },
) =>
  db
    .select({ tool: tools, service: services })
    .from(tools)
    .innerJoin(services, eq(services.uid, tools.serviceUid))
    .where(
      and(
        eq(tools.workspaceUid, workspaceUid),
        liveService(),
        page.service === undefined ? undefined : eq(tools.serviceUid, page.service),
        page.after ? lt(tools.uid, page.after) : undefined,
      ),
    )
    .orderBy(desc(tools.uid))
    .limit(page.limit)
    .all();

/**
 * Makes the tool's pending definition its definition. Only the pending hash
 * that was read is accepted: undefined when a refresh changed it in between.
 */
export function acceptPendingDefinition(
  db: Database,
  tool: ToolRow & { pendingHash: string; pendingDefinition: NonNullable<ToolRow["pendingDefinition"]> },
  acceptance: { actor: string; at: string },
): Promise<ToolRow | undefined> {
  const pending = tool.pendingDefinition;
  return db
    .update(tools)
    .set({
      description: pending.description ?? null,
      inputSchema: pending.inputSchema,
      outputSchema: pending.outputSchema ?? null,
      definitionHash: tool.pendingHash,
      reviewState: "accepted",
      pendingHash: null,
      pendingDefinition: null,
      acceptedBy: acceptance.actor,
      acceptedAt: acceptance.at,
      updatedAt: acceptance.at,
    })
    .where(and(eq(tools.uid, tool.uid), eq(tools.pendingHash, tool.pendingHash)))
    .returning()
    .get();
}
