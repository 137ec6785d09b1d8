import { gateway } from "./app";

export default {
  fetch: (request, env, ctx) => gateway.fetch(request, env, ctx),
} satisfies ExportedHandler<Env>;
