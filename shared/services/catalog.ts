// What the gateway reads from D1 about tools: one call's tool (with its
// service, gateway settings, sealed upstream secret and the access profiles in
// force, read in parallel) and the list of exposed tools for `tools/list`.
// The isolate caches these reads by the workspace's catalog version
// (catalog-cache.ts); every writer bumps the version after its D1 write.
import { and, eq, isNull, or, sql } from "drizzle-orm";
import { defaultRisk, profilesFromRows, profilesQuery, type AccessProfile } from "../access";
import { database } from "../db/client";
import { services, toolGatewaySettings, tools, workspaceSecrets, type RiskLevel } from "../db/schema";
import type { JsonObject } from "../json";
import type { SealedSecret } from "../secrets";
import type { ServiceRow, ToolRow } from "./store";

export interface CatalogTool {
  tool: ToolRow;
  service: ServiceRow;
  risk: RiskLevel;
  projection: string[] | null;
  /** The sealed secret the service names, when it names one and it is set. */
  secret: SealedSecret | null;
}

function toolQuery(db: D1Database) {
  return database(db)
    .select({
      tool: tools,
      service: services,
      risk: toolGatewaySettings.risk,
      projection: toolGatewaySettings.projection,
      ciphertext: workspaceSecrets.ciphertext,
      iv: workspaceSecrets.iv,
      keyVersion: workspaceSecrets.keyVersion,
    })
    .from(tools)
    .innerJoin(services, eq(services.uid, tools.serviceUid))
    .leftJoin(toolGatewaySettings, eq(toolGatewaySettings.toolUid, tools.uid))
    .leftJoin(
      workspaceSecrets,
      and(
        eq(workspaceSecrets.workspaceUid, tools.workspaceUid),
        eq(workspaceSecrets.name, services.authorizationSecret),
      ),
    )
    .$dynamic();
}

type ToolJoinRow = Awaited<ReturnType<ReturnType<typeof toolQuery>["all"]>>[number];

const catalogTool = (row: ToolJoinRow): CatalogTool => ({
  tool: row.tool,
  service: row.service,
  risk: row.risk ?? defaultRisk(row.tool),
  projection: row.projection ?? null,
  secret: sealed(row),
});

/**
 * A tool that no longer has a public name because it was removed upstream or its
 * service was deleted, matched by the names it had (`tool` or `service__tool`).
 */
export async function findUnavailableTool(db: D1Database, workspaceUid: string, name: string) {
  return database(db)
    .select({
      uid: tools.uid,
      removedAt: tools.removedAt,
      deletedAt: services.deletedAt,
      legacy: services.legacy,
    })
    .from(tools)
    .innerJoin(services, eq(services.uid, tools.serviceUid))
    .where(
      and(
        eq(tools.workspaceUid, workspaceUid),
        isNull(tools.publicName),
        or(eq(tools.upstreamName, name), sql`${services.name} || '__' || ${tools.upstreamName} = ${name}`),
      ),
    )
    .get();
}

/** A live service of the workspace, for what the gateway passes through beside tools. */
export interface CatalogService {
  service: ServiceRow;
  secret: SealedSecret | null;
}

function liveServicesQuery(db: D1Database, workspaceUid: string) {
  return database(db)
    .select({
      service: services,
      ciphertext: workspaceSecrets.ciphertext,
      iv: workspaceSecrets.iv,
      keyVersion: workspaceSecrets.keyVersion,
    })
    .from(services)
    .leftJoin(
      workspaceSecrets,
      and(
        eq(workspaceSecrets.workspaceUid, services.workspaceUid),
        eq(workspaceSecrets.name, services.authorizationSecret),
      ),
    )
    .where(
      and(eq(services.workspaceUid, workspaceUid), isNull(services.deletedAt), eq(services.legacy, false)),
    );
}

const sealed = (row: {
  ciphertext: string | null;
  iv: string | null;
  keyVersion: number | null;
}): SealedSecret | null =>
  row.ciphertext !== null && row.iv !== null && row.keyVersion !== null
    ? { ciphertext: row.ciphertext, iv: row.iv, keyVersion: row.keyVersion }
    : null;

/**
 * Every tool of the workspace that has a public name (whatever its review or
 * removal state) and the profiles in force: what the isolate caches.
 */
export async function loadNamedCatalog(
  db: D1Database,
  workspaceUid: string,
  keyProfile: string,
): Promise<{
  tools: CatalogTool[];
  services: CatalogService[];
  workspace: AccessProfile;
  key: AccessProfile | null;
}> {
  const [toolRows, serviceRows, profileRows] = await Promise.all([
    toolQuery(db)
      .where(and(eq(tools.workspaceUid, workspaceUid), sql`${tools.publicName} is not null`))
      .all(),
    liveServicesQuery(db, workspaceUid).all(),
    profilesQuery(db, workspaceUid, keyProfile).all(),
  ]);
  return {
    services: serviceRows
      .map((row) => ({ service: row.service, secret: sealed(row) }))
      .toSorted((a, b) => a.service.name.localeCompare(b.service.name)),
    tools: toolRows
      .map(catalogTool)
      .toSorted((a, b) => (a.tool.publicName ?? "").localeCompare(b.tool.publicName ?? "")),
    ...profilesFromRows(profileRows, keyProfile),
  };
}

/** Whether `tools/list` shows the tool: present upstream and its service live. */
export const isExposed = (entry: CatalogTool): boolean =>
  entry.tool.removedAt === null && entry.service.deletedAt === null && !entry.service.legacy;

/** A schema column: stored JSON objects (the index only writes JSON-Schema objects there). */
const storedSchema = (schema: Record<string, unknown>): JsonObject => schema as JsonObject;

/** The tool's upstream schemas as the adapter steps take them. */
export const upstreamSchemas = (tool: ToolRow): { inputSchema: JsonObject; outputSchema?: JsonObject } => ({
  inputSchema: storedSchema(tool.inputSchema),
  ...(tool.outputSchema ? { outputSchema: storedSchema(tool.outputSchema) } : {}),
});
