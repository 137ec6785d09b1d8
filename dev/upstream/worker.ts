// Dev-only Worker: the demo upstream MCP server `npm start` runs beside the
// product (never deployed). Same server as the tests use.
import { createUpstreams } from "./server";

const upstreams = createUpstreams();

export default {
  fetch: (request: Request) => upstreams(request),
} satisfies ExportedHandler;
