// For the demo upstream's `echo` tool, which declares no output schema: `after` gets
// its MCP content blocks as `{ content }`. Runs of four or more digits in text blocks
// (card, account and phone numbers) become "[redacted]" before the agent sees them.
export default defineToolAdapter({
  apiVersion: "rayrun.hooks/v1",

  after({ result }) {
    const content = result.content.map((block) =>
      block.type === "text" ? { ...block, text: block.text.replace(/\d{4,}/g, "[redacted]") } : block,
    );
    return { action: "return", result: { content } };
  },
});
