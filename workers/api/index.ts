import { countRequest, withSimulatedDistance } from "../../shared/sim/distance";
import { app } from "./app";
import { scheduled } from "./cron";

export { WorkspaceObject } from "../../durable-objects/workspace/object";

// The env is wrapped here and nowhere else: with SIM_HOME_RTT_MS set (dev only), every await on
// the WorkspaceObject, D1 or R2 waits first; unset, withSimulatedDistance returns `env` itself.
export default {
  fetch: async (request, env, ctx) => {
    const answered = countRequest(request, env);
    try {
      return await app.fetch(request, withSimulatedDistance(env), ctx);
    } finally {
      answered();
    }
  },
  scheduled: (controller, env, ctx) => scheduled(controller, withSimulatedDistance(env), ctx),
} satisfies ExportedHandler<Env>;
