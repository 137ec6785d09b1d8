// Redaction on the way back: every run of four or
// more digits in a tool's output (card, account and phone numbers, PINs) becomes
// "[redacted]" before the client sees it. `npm start` deploys it as
// plugins/redact.ts, first in the demo workspace's `plugins` list; try the demo
// upstream's `echo` with "card 4111 1111 1111 1111". It is workspace source
// compiled by Rayrun (no imports; only a default export), not part of
// any Worker. `RayrunToolExecuteAfterInput` (the payload, docs/plugins.md
// "tool.execute payloads") is the editor's declarations for plugins
// (GET …/files/plugins%2Fredact.ts/types).

const redact = (text: string): string => text.replace(/\d{4,}/g, "[redacted]");

export default {
  "tool.execute.after": (input: RayrunToolExecuteAfterInput) => {
    const output = redact(input.result.output);
    if (output === input.result.output) return undefined;
    // The whole payload goes back: a fragment would drop toolID, args and ctx.
    return { ...input, result: { ...input.result, output } };
  },
};
