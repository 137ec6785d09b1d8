import { app } from "./app";

export { WorkspaceObject } from "../../durable-objects/workspace";

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Env>;
