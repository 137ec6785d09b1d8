// Dev-only Worker: the demo LLM provider (echo) `npm start` runs beside the
// product (never deployed). Same fake as the tests use.
import { createProvider } from "./server";

const provider = createProvider();

export default {
  fetch: (request: Request) => provider(request),
} satisfies ExportedHandler;
