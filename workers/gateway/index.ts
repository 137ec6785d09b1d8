import { isolateRequests } from "../../shared/sandbox";
import { gateway } from "./app";

export default {
  // Counted so warm-pool refills build between requests, not inside them (shared/sandbox/activity.ts).
  fetch: (request, env, ctx) => isolateRequests.track(() => gateway.fetch(request, env, ctx)),
} satisfies ExportedHandler<Env>;
