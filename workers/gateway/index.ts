import { countRequest, withSimulatedDistance } from "../../shared/sim/distance";
import { gateway } from "./app";

// The env is wrapped here and nowhere else: with SIM_HOME_RTT_MS set (dev only), every await on
// the WorkspaceObject, D1 or R2 waits first; unset, withSimulatedDistance returns `env` itself.
export default {
  fetch: async (request, env, ctx) => {
    const answered = countRequest(request, env);
    try {
      return await gateway.fetch(request, withSimulatedDistance(env), ctx);
    } finally {
      answered();
    }
  },
} satisfies ExportedHandler<Env>;
