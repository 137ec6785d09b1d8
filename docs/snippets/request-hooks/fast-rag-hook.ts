// lib/fast-rag-hook.ts: enriches the conversation with what the deployed retrieval
// lambda lib/fast-rag.ts finds, and sends the rest of the request unchanged.
export async function transform({ request, loop }: RayrunRequestHookInput): Promise<RayrunRequest> {
  const enrichment = await rayrun.lambda<{ messages: RayrunMessage[] }>({
    source: "lib/fast-rag.ts:enrichMessages",
    args: { messages: request.messages, loop: loop.name },
  });
  return { ...request, messages: enrichment.messages };
}
