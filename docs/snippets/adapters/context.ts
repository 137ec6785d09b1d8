// For `echo`: stamps each text with the deployed config's `label` and the time of the
// call, and logs which call it stamped. Everything here comes from `context`.
export default defineToolAdapter({
  apiVersion: "rayrun.hooks/v1",

  before({ arguments: args, context }) {
    const label = typeof context.config.label === "string" ? context.config.label : "agent";
    context.log.info("stamped", { tool: context.toolName, requestId: context.requestId });
    return { action: "continue", arguments: { text: `[${label} ${context.calledAt}] ${args.text}` } };
  },
});
