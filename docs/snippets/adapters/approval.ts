// For the demo upstream's `echo` tool: text that contains an email address is sent
// only after a person approves the call. Everything else goes through unchanged.
export default defineToolAdapter({
  apiVersion: "rayrun.hooks/v1",

  before({ arguments: args }) {
    if (/[\w.+-]+@[\w-]+\.[\w.-]+/.test(args.text)) {
      return {
        action: "approval",
        arguments: args,
        reason: "The text contains an email address; a person must approve sending it.",
      };
    }
    return { action: "continue", arguments: args };
  },
});
