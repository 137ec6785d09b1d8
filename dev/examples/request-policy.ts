// The first request-hook example of docs/request-hooks.md: present
// just two existing tool schemas on ordinary conversational calls. `npm start`
// deploys it as lib/request-policy.ts and makes it the demo workspace's
// `pre_llm_hook` (`lib/request-policy.ts:transform`, scope "all"). It is
// workspace source compiled by Rayrun, not part of any Worker.

export function transform({ request }) {
  return {
    ...request,
    tools: request.tools.filter((tool) => tool.name === "fs_read" || tool.name === "fs_write"),
  };
}
