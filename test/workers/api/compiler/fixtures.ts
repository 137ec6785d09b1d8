// Adapter sources shared by the compiler tests.

/** The example adapter of seed 000, verbatim. */
export const SEED_ADAPTER = `export default defineToolAdapter<{ query: string }, { items: unknown[] }>({
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
`;

export const SEED_PUBLIC_CONTRACT = {
  description: "Search public release notes",
  inputSchema: {
    type: "object",
    properties: { query: { type: "string" } },
    required: ["query"],
    additionalProperties: false,
  },
};

/** A minimal valid adapter whose definition members can be swapped. */
export const adapter = (members: string, prelude = ""): string =>
  `${prelude}export default defineToolAdapter({\n${members}\n});\n`;

export const VERSION = `  apiVersion: "rayrun.hooks/v1",`;
export const BEFORE = `  before({ arguments: args }) { return { action: "continue", arguments: args }; },`;
export const MINIMAL = adapter(`${VERSION}\n${BEFORE}`);
