// Refused by the compiler: a public contract may not use `pattern`. The gateway runs
// every public schema on every call, and a regular expression's running time cannot
// be bounded.
export default defineToolAdapter({
  apiVersion: "rayrun.hooks/v1",

  publicContract: {
    inputSchema: {
      type: "object",
      properties: { text: { type: "string", pattern: "^[a-z ]+$" } },
      required: ["text"],
    },
  },

  before: ({ arguments: args }) => ({ action: "continue", arguments: args }),
});
