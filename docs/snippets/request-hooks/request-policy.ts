// lib/request-policy.ts: the provider is shown only two of the agent's tools.
export function transform({ request }: RayrunRequestHookInput): RayrunRequest {
  return {
    ...request,
    tools: request.tools.filter((tool) => tool.name === "fs_read" || tool.name === "fs_write"),
  };
}
