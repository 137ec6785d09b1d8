// A tool's gateway settings row (risk, response projection); no row means the defaults.
import { eq } from "drizzle-orm";
import type { Database } from "../../../shared/db/client";
import { toolGatewaySettings } from "../../../shared/db/schema";

export type ToolGatewaySettingsRow = typeof toolGatewaySettings.$inferSelect;
export type ToolGatewaySettingsValues = Omit<ToolGatewaySettingsRow, "toolUid" | "workspaceUid">;

export const findToolGatewaySettings = (
  db: Database,
  toolUid: string,
): Promise<ToolGatewaySettingsRow | undefined> =>
  db.select().from(toolGatewaySettings).where(eq(toolGatewaySettings.toolUid, toolUid)).get();

/** Creates the tool's settings or replaces every one of them. */
export const putToolGatewaySettings = (
  db: Database,
  tool: { uid: string; workspaceUid: string },
  values: ToolGatewaySettingsValues,
): Promise<ToolGatewaySettingsRow> =>
  db
    .insert(toolGatewaySettings)
    .values({ toolUid: tool.uid, workspaceUid: tool.workspaceUid, ...values })
    .onConflictDoUpdate({ target: toolGatewaySettings.toolUid, set: values })
    .returning()
    .get();
