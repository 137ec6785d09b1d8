// Column builders every workspace-scoped table repeats.
import { text } from "drizzle-orm/sqlite-core";
import { workspaces } from "./schema-workspaces";

/** `workspace_uid`, not null, referencing `workspaces.uid`. A function: drizzle needs a fresh builder per table. */
export function workspaceRef() {
  return text("workspace_uid")
    .notNull()
    .references(() => workspaces.uid);
}
