// For an upload tool whose upstream takes `{ name, contentBase64 }`: agents send plain
// `text`, and the adapter encodes it. On the way back, the upstream's base64 `preview`
// is decoded so the agent reads text.
export default defineToolAdapter<{ name: string; text: string }>({
  apiVersion: "rayrun.hooks/v1",

  publicContract: {
    inputSchema: {
      type: "object",
      properties: { name: { type: "string" }, text: { type: "string" } },
      required: ["name", "text"],
      additionalProperties: false,
    },
  },

  before({ arguments: args, context }) {
    return {
      action: "continue",
      arguments: { name: args.name, contentBase64: context.encoding.base64Encode(args.text) },
    };
  },

  after({ result, context }) {
    return {
      action: "return",
      result: { ...result, preview: context.encoding.base64Decode(result.preview) },
    };
  },
});
