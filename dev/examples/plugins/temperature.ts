// The chat.params example of docs/plugins.md: every model call through the LLM
// proxy goes out with temperature 0.1. `npm start` deploys it as
// plugins/temperature.ts, last in the demo workspace's `plugins` list. It is
// workspace source compiled by Rayrun (no imports), not part of any Worker.

export default {
  "chat.params": (params: { temperature?: number }) => ({ ...params, temperature: 0.1 }),
};
