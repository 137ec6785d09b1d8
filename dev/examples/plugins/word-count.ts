// A plugin tool: `word_count` counts the words of `text`.
// `npm start` deploys it as plugins/word-count.ts in the demo workspace. It is
// not in the config's `plugins` list, so it runs as an auto-discovered plugin
// (after the listed ones). MCP clients see `word_count` in `tools/list` beside
// the upstream's tools, and its `execute` runs in a fresh sandbox for each call.
// It is workspace source compiled by Rayrun (no imports), not part of any Worker.

type WordCountArgs = { text: string };

export default {
  tool: () => [
    {
      id: "word_count",
      description: "Count the words in a text.",
      // Plain JSON Schema: the definitions are read once, at deploy time, as JSON.
      parameters: {
        type: "object",
        properties: { text: { type: "string", description: "The text whose words to count" } },
        required: ["text"],
        additionalProperties: false,
      },
      execute(args: WordCountArgs) {
        const words = args.text.split(/\s+/).filter((word) => word !== "").length;
        return { title: "word_count", output: `${words} words` };
      },
    },
  ],
};
