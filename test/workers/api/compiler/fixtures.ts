// Adapter sources shared by the compiler tests.

/** The product's example adapter, verbatim. */
/** The product's example adapter, verbatim (dev/examples/search-release-notes.ts). */
export { default as SEED_ADAPTER } from "../../../../dev/examples/search-release-notes.ts?raw";

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
