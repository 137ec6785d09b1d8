// The "Fast RAG with an existing lambda" request hook of docs/request-hooks.md: it calls the
// deployed retrieval lambda lib/fast-rag.ts:enrichMessages
// (dev/examples/fast-rag.ts) and returns the enriched messages with the rest
// of the request unchanged. `npm start` deploys it as lib/fast-rag-hook.ts;
// to use it, set the workspace config's `pre_llm_hook.source` to
// "lib/fast-rag-hook.ts:transform" and turn on `code_execution.sys_lambda`,
// the gate nested lambdas need (with it off, every call fails closed with
// 422 request_hook_failed). Workspace source compiled by Rayrun, not part of
// any Worker. The `rayrun` global and the `Rayrun…` types are the editor's
// declarations for lib files (GET …/files/lib%2Ffast-rag-hook.ts/types).

export async function transform({ request, loop }) {
  // The type argument says what enrichMessages returns (the bridge does not check it).
  const enrichment = await rayrun.lambda<{ messages: RayrunMessage[] }>({
    source: "lib/fast-rag.ts:enrichMessages",
    args: {
      messages: request.messages,
      loop: loop.name,
    },
  });

  return {
    ...request,
    messages: enrichment.messages,
  };
}
