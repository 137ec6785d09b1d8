// The product's example adapter, verbatim: `npm start` deploys it in the demo workspace
// and tests compile it. It is hook source, compiled by Rayrun, not part of any Worker.
export default defineToolAdapter<{ query: string }, { items: unknown[] }>({
  apiVersion: "rayrun.hooks/v1",

  publicContract: {
    description: "Search public release notes",
    inputSchema: {
      type: "object",
      properties: { query: { type: "string" } },
      required: ["query"],
      additionalProperties: false,
    },
  },

  before({ arguments: args, context }) {
    context.log.info("Preparing search", { query: args.query });
    const prefix = typeof context.config.prefix === "string" ? context.config.prefix : "";
    return {
      action: "continue",
      arguments: { q: prefix + args.query },
    };
  },

  after({ result }) {
    return { action: "return", result: { items: result.items } };
  },
});
