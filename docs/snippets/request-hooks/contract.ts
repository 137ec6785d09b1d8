// The whole contract: one JSON object in, the complete request to send out. This
// hook sends the request as it came, member by member.
export async function transform({ request, loop }: RayrunRequestHookInput): Promise<RayrunRequest> {
  // loop.name is "main" or the current inner loop's name.
  rayrun.log.debug("passing the request through", { loop: loop.name });
  return {
    model: request.model,
    system: request.system,
    messages: request.messages,
    tools: request.tools,
    options: request.options,
  };
}
