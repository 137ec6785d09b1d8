// A plugin that fails: its tool.execute.after
// and chat.params hooks throw. `npm start` deploys it as plugins/broken.ts, listed
// between redact and temperature in the demo workspace's `plugins`. Each throw
// is caught and logged (outcome `threw`), only this plugin's contribution is
// dropped, and the others' still apply: tool output stays redacted and the model
// call still gets temperature 0.1. It is workspace source compiled by Rayrun,
// not part of any Worker.

export default {
  // An observer that works. It is also the hook the documented test-console run
  // uses, because a version needs one completed run before it can deploy.
  "tool.execute.before": () => undefined,
  "tool.execute.after": () => {
    throw new Error("broken plugin: tool.execute.after always throws");
  },
  "chat.params": () => {
    throw new Error("broken plugin: chat.params always throws");
  },
};
