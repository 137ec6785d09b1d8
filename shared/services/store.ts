// Reads and derived writes shared by the service and tool routes.
import { and, eq, isNull, ne } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "../db/client";
import { services, tools } from "../db/schema";
import { publicToolNames, type NamedTool } from "./names";

export type ServiceRow = typeof services.$inferSelect;
export type ToolRow = typeof tools.$inferSelect;

export const now = (): string => new Date().toISOString();

/**
 * The SQL condition for a service that still exists: not deleted, and not a
 * legacy row kept only for hook history. Its tools are the callable ones.
 */
export const liveService = () => and(isNull(services.deletedAt), eq(services.legacy, false));

/** A service of the workspace, deleted or not, or undefined. */
export function findService(db: Database, workspaceUid: string, serviceUid: string) {
  return db
    .select()
    .from(services)
    .where(and(eq(services.workspaceUid, workspaceUid), eq(services.uid, serviceUid)))
    .get();
}

/** A tool of the workspace with its service, or undefined. */
export async function findTool(db: Database, workspaceUid: string, toolUid: string) {
  const row = await db
    .select({ tool: tools, service: services })
    .from(tools)
    .innerJoin(services, eq(services.uid, tools.serviceUid))
    .where(and(eq(tools.workspaceUid, workspaceUid), eq(tools.uid, toolUid)))
    .get();
  return row ?? undefined;
}

/** Every tool row of one service, removed ones included. */
export function toolsOfService(db: Database, serviceUid: string) {
  return db.select().from(tools).where(eq(tools.serviceUid, serviceUid)).all();
}

interface ExposedTool extends NamedTool {
  publicName: string | null;
}

/**
 * The tools clients can see in a workspace (present upstream, service live),
 * except those of `exceptService`.
 */
async function exposedTools(
  db: Database,
  workspaceUid: string,
  exceptService: string,
): Promise<ExposedTool[]> {
  return db
    .select({
      uid: tools.uid,
      upstreamName: tools.upstreamName,
      publicName: tools.publicName,
      serviceName: services.name,
    })
    .from(tools)
    .innerJoin(services, eq(services.uid, tools.serviceUid))
    .where(
      and(
        eq(tools.workspaceUid, workspaceUid),
        liveService(),
        isNull(tools.removedAt),
        ne(services.uid, exceptService),
      ),
    )
    .all();
}

/**
 * Public names after one service's exposed tools change: `names` for every
 * exposed tool (the changed service's `mine` included) and the updates that
 * bring the other services' stored names in line.
 */
export async function renameAround(
  db: Database,
  workspaceUid: string,
  serviceUid: string,
  mine: readonly NamedTool[],
): Promise<{ names: Map<string, string>; updates: BatchItem<"sqlite">[] }> {
  const others = await exposedTools(db, workspaceUid, serviceUid);
  const names = publicToolNames([...others, ...mine]);
  const updates: BatchItem<"sqlite">[] = [];
  for (const tool of others) {
    const name = names.get(tool.uid) ?? tool.upstreamName;
    if (name !== tool.publicName) {
      updates.push(
        db.update(tools).set({ publicName: name, updatedAt: now() }).where(eq(tools.uid, tool.uid)),
      );
    }
  }
  return { names, updates };
}

/** Whether a D1 write failed on a unique index (drizzle wraps the driver's error as `cause`). */
export function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if (/UNIQUE constraint failed/i.test(e.message)) return true;
  }
  return false;
}
