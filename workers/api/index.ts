import { app } from "./app";
import { scheduled } from "./cron";

export { WorkspaceObject } from "../../durable-objects/workspace/object";

export default {
  fetch: app.fetch,
  scheduled,
} satisfies ExportedHandler<Env>;
