// Indexing a service's `tools/list` into the tool table.
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { eq, inArray } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "../db/client";
import {
  services,
  tools,
  type ToolDefinition,
  type ToolListing,
  type UpstreamCapabilities,
} from "../db/schema";
import { utf8Bytes } from "../json";
import { newId } from "../ids";
import { err, ok, type Result } from "../result";
import { definitionBytes, definitionHash, toolDefinition, toolListing } from "../mcp/definition";
import { isUniqueViolation, now, renameAround, toolsOfService, type ServiceRow, type ToolRow } from "./store";

/** D1 binds at most 100 parameters per statement. */
const MAX_BOUND_PARAMETERS = 100;
/** Values a new tool row binds (every column but the removal and acceptance ones). */
const INSERT_COLUMNS = 15;

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Largest stored definition (JSON text of name, description and both schemas). */
export const MAX_DEFINITION_BYTES = 256 * 1024;

export interface RefreshSummary {
  /** Upstream names, each list sorted. */
  added: string[];
  changed: string[];
  removed: string[];
  unchanged: string[];
  /** Uids of the service's present tools after the refresh. */
  toolUids: string[];
}

export type RefreshError = { kind: "definition_too_large"; name: string; bytes: number };

interface Seen {
  definition: ToolDefinition;
  hash: string;
  listing: ToolListing | null;
}

/** The fields a tool row takes from an accepted definition. */
const acceptedColumns = (seen: Seen) => ({
  description: seen.definition.description ?? null,
  inputSchema: seen.definition.inputSchema,
  outputSchema: seen.definition.outputSchema ?? null,
  definitionHash: seen.hash,
  reviewState: "accepted" as const,
  pendingHash: null,
  pendingDefinition: null,
});

const pendingColumns = (seen: Seen) => ({
  reviewState: "review_required" as const,
  pendingHash: seen.hash,
  pendingDefinition: seen.definition,
});

/**
 * Brings the stored tools of `service` in line with `listed` (its upstream's
 * `tools/list`) in one D1 batch: new tools are added accepted; a tool whose
 * definition differs from its accepted one needs review; tools no longer listed
 * are marked removed (kept for their hook history); the workspace's public
 * names are recomputed.
 */
export async function indexTools(
  db: Database,
  service: ServiceRow,
  upstream: { tools: readonly Tool[]; capabilities: UpstreamCapabilities },
): Promise<Result<RefreshSummary, RefreshError>> {
  const listed = upstream.tools;
  const seen = new Map<string, Seen>();
  for (const tool of listed) {
    const definition = toolDefinition(tool);
    const listing = toolListing(tool);
    const bytes = definitionBytes(definition) + (listing === null ? 0 : utf8Bytes(JSON.stringify(listing)));
    if (bytes > MAX_DEFINITION_BYTES) return err({ kind: "definition_too_large", name: tool.name, bytes });
    seen.set(tool.name, { definition, hash: await definitionHash(definition), listing });
  }

  try {
    return ok(await applyIndex(db, service, seen, upstream.capabilities));
  } catch (error) {
    // A concurrent refresh inserted the same tool first: plan again from what it stored.
    if (!isUniqueViolation(error)) throw error;
    return ok(await applyIndex(db, service, seen, upstream.capabilities));
  }
}

async function applyIndex(
  db: Database,
  service: ServiceRow,
  seen: Map<string, Seen>,
  capabilities: UpstreamCapabilities,
): Promise<RefreshSummary> {
  const at = now();
  const stored = new Map<string, ToolRow>(
    (await toolsOfService(db, service.uid)).map((t) => [t.upstreamName, t]),
  );
  const summary: RefreshSummary = { added: [], changed: [], removed: [], unchanged: [], toolUids: [] };

  // What each present tool becomes; names are filled in once the whole workspace is known.
  type Write =
    | { op: "insert"; uid: string; name: string }
    | {
        op: "update";
        uid: string;
        name: string;
        columns: Partial<ToolRow> | null;
        publicName: string | null;
      };
  const writes: Write[] = [];

  for (const [name, next] of seen) {
    const row = stored.get(name);
    if (row === undefined) {
      writes.push({ op: "insert", uid: newId("tool"), name });
      summary.added.push(name);
      continue;
    }
    // Title, annotations and the like follow the upstream at once: they are outside the reviewed definition.
    const listingChanged = JSON.stringify(row.listing ?? null) !== JSON.stringify(next.listing);
    const withListing = (columns: Partial<ToolRow> | null): Partial<ToolRow> | null =>
      listingChanged ? { ...(columns ?? { updatedAt: at }), listing: next.listing } : columns;
    const base = { op: "update" as const, uid: row.uid, name, publicName: row.publicName };
    const matchesAccepted = next.hash === row.definitionHash;
    if (row.removedAt !== null) {
      const columns = matchesAccepted ? acceptedColumns(next) : pendingColumns(next);
      writes.push({ ...base, columns: withListing({ ...columns, removedAt: null, updatedAt: at }) });
      summary.added.push(name);
    } else if (matchesAccepted && row.reviewState === "accepted") {
      writes.push({ ...base, columns: withListing(null) });
      summary.unchanged.push(name);
    } else if (!matchesAccepted && row.pendingHash === next.hash) {
      writes.push({ ...base, columns: withListing(null) });
      summary.unchanged.push(name);
    } else {
      // Either a new change to review, or back to the accepted definition (review no longer needed).
      const columns = matchesAccepted ? acceptedColumns(next) : pendingColumns(next);
      writes.push({ ...base, columns: withListing({ ...columns, updatedAt: at }) });
      summary.changed.push(name);
    }
  }

  const statements: BatchItem<"sqlite">[] = [];
  const gone: string[] = [];
  for (const row of stored.values()) {
    if (row.removedAt === null && !seen.has(row.upstreamName)) {
      gone.push(row.uid);
      summary.removed.push(row.upstreamName);
    }
  }
  for (const uids of chunks(gone, MAX_BOUND_PARAMETERS - 3)) {
    statements.push(
      db
        .update(tools)
        .set({ removedAt: at, publicName: null, updatedAt: at })
        .where(inArray(tools.uid, uids)),
    );
  }

  const { names, updates } = await renameAround(
    db,
    service.workspaceUid,
    service.uid,
    writes.map((w) => ({ uid: w.uid, serviceName: service.name, upstreamName: w.name })),
  );
  const inserts: (typeof tools.$inferInsert)[] = [];
  for (const write of writes) {
    const publicName = names.get(write.uid) ?? write.name;
    if (write.op === "insert") {
      const definition = seen.get(write.name);
      if (!definition) continue;
      inserts.push({
        ...acceptedColumns(definition),
        listing: definition.listing,
        uid: write.uid,
        workspaceUid: service.workspaceUid,
        serviceUid: service.uid,
        upstreamName: write.name,
        publicName,
        createdAt: at,
        updatedAt: at,
      });
    } else if (write.columns !== null || publicName !== write.publicName) {
      const set = write.columns ?? { updatedAt: at };
      statements.push(
        db
          .update(tools)
          .set({ ...set, publicName })
          .where(eq(tools.uid, write.uid)),
      );
    }
    summary.toolUids.push(write.uid);
  }
  // Several rows per insert keep a first refresh of a large service to few statements.
  for (const rows of chunks(inserts, Math.floor(MAX_BOUND_PARAMETERS / INSERT_COLUMNS))) {
    statements.push(db.insert(tools).values(rows));
  }
  statements.push(...updates);

  await db.batch([
    db.update(services).set({ refreshedAt: at, capabilities }).where(eq(services.uid, service.uid)),
    ...statements,
  ]);
  for (const list of [summary.added, summary.changed, summary.removed, summary.unchanged]) list.sort();
  return summary;
}
