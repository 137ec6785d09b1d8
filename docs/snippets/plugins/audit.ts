// plugins/audit.ts: one log entry per tool call, naming the call. It returns nothing,
// so every call goes on unchanged.
export default {
  "tool.execute.before": (input) => {
    rayrun.log.info("tool call", {
      tool: input.toolID,
      requestId: input.ctx.requestId,
      loop: input.ctx.loop ?? null,
      session: input.ctx.sessionId ?? null,
    });
    return undefined;
  },
} satisfies RayrunPlugin;
