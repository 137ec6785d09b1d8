export default {
  "chat.params": (params) => ({ ...params, temperature: 0.1 }),
  "tool.execute.after": (input) => {
    const output = input.result.output.replace(/\d{4,}/g, "[redacted]");
    return output === input.result.output ? undefined : { ...input, result: { ...input.result, output } };
  },
} satisfies RayrunPlugin;
