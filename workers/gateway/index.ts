import { countRequest, withSimulatedDistance } from "../../shared/sim/distance";
import { gateway } from "./app";

// The env is wrapped here and nowhere else: with SIM_HOME_RTT_MS set (dev only), every await on
// the WorkspaceObject, D1 or R2 waits first; unset, withSimulatedDistance returns `env` itself.
export default {
  fetch: (request, env, ctx) => {
    countRequest();
    return gateway.fetch(request, withSimulatedDistance(env), ctx);
  },
} satisfies ExportedHandler<Env>;
