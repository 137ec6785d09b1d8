// plugins/defaults.ts: every model call goes out at temperature 0.1, and every call
// of the `bash` tool gets a 10 s timeout. Other tool calls pass unchanged.
export default {
  "chat.params": (params) => ({ ...params, temperature: 0.1 }),
  "tool.execute.before": (input) => {
    if (input.toolID !== "bash") return undefined;
    return { ...input, args: { ...input.args, timeout: 10_000 } };
  },
} satisfies RayrunPlugin;
