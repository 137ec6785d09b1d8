// lib/fast-rag-hook.ts, written with the published names of the host calls.
export async function transform({ request, loop }: RayrunRequestHookInput): Promise<RayrunRequest> {
  const enrichment = await adf.sys_lambda<{ messages: RayrunMessage[] }>({
    source: "lib/fast-rag.ts:enrichMessages",
    args: { messages: request.messages, loop: loop.name },
  });
  return { ...request, messages: enrichment.messages };
}
