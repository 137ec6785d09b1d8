export function transform({ request }: RayrunRequestHookInput): RayrunRequest {
  return { ...request, tools: request.tools.filter((tool) => tool.name !== "shell") };
}
