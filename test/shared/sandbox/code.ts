// Hand-written stand-ins for compiler output: esbuild's iife format with
// globalName "__rayrunModule", so `__rayrunModule.default` is the default
// export. Plain strings only, so the Node bench can import this too.

export const moduleCode = (body: string): string => `var __rayrunModule = (() => {\n${body}\n})();`;

/** An adapter whose definition object literal has the given members. */
export const adapterCode = (members: string): string =>
  moduleCode(`return { default: defineToolAdapter({ apiVersion: "rayrun.hooks/v1", ${members} }) };`);

/** An adapter with only a `before` stage running `body`. */
export const beforeCode = (body: string): string =>
  adapterCode(`before({ arguments: args, context }) {\n${body}\n}`);

export const CONTINUE = `return { action: "continue", arguments: {} };`;

export const SEED_ADAPTER = adapterCode(`
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
    return { action: "continue", arguments: { q: prefix + args.query } };
  },
  after({ result }) {
    return { action: "return", result: { items: result.items } };
  },
`);
