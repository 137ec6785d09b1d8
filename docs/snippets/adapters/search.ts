// An adapter for the demo upstream's `search_release_notes` tool. Agents call it with
// `query`; the upstream wants `q`. Blank queries are refused before they reach the
// upstream, and results below the deployed config's `minScore` are left out.
export default defineToolAdapter<{ query: string }>({
  apiVersion: "rayrun.hooks/v1",

  publicContract: {
    description: "Search the release notes. Returns the matching releases, best first.",
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string", minLength: 1, maxLength: 200, description: "What to look for" },
      },
      required: ["query"],
      additionalProperties: false,
    },
  },

  before({ arguments: args, context }) {
    const query = args.query.trim();
    if (query === "") {
      return {
        action: "reject",
        reason: "blank_query",
        message: "Say what to search for: the query is blank.",
      };
    }
    context.log.info("searching", { query });
    return { action: "continue", arguments: { q: query } };
  },

  after({ result, context }) {
    const minScore = typeof context.config.minScore === "number" ? context.config.minScore : 0;
    return { action: "return", result: { items: result.items.filter((item) => item.score >= minScore) } };
  },
});
