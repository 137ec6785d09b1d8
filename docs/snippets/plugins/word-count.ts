// plugins/word-count.ts: a plugin tool. Agents see `word_count` in tools/list beside
// the upstream tools, and each call runs `execute` in a fresh sandbox.
export default {
  tool: () => [
    {
      id: "word_count",
      description: "Count the words in a text.",
      parameters: {
        type: "object",
        properties: { text: { type: "string", description: "The text whose words to count" } },
        required: ["text"],
        additionalProperties: false,
      },
      execute: (args: { text: string }) => {
        const words = args.text.split(/\s+/).filter((word) => word !== "").length;
        return { title: "word_count", output: `${words} words` };
      },
    },
  ],
} satisfies RayrunPlugin;
