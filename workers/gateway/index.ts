import { gateway } from "./app";

export default {
  fetch: gateway.fetch,
} satisfies ExportedHandler<Env>;
