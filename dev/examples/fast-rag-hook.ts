// The "Fast RAG with an existing lambda" request hook of docs/request-hooks.md: it calls the
// deployed retrieval lambda lib/fast-rag.ts:enrichMessages
// (dev/examples/fast-rag.ts) and returns the enriched messages with the rest
// of the request unchanged. `npm start` deploys it as lib/fast-rag-hook.ts;
// to use it, set the workspace config's `pre_llm_hook.source` to
// "lib/fast-rag-hook.ts:transform" and turn on `code_execution.sys_lambda`,
// the gate nested lambdas need (with it off, every call fails closed with
// 422 request_hook_failed). Workspace source compiled by Rayrun, not part of
// any Worker.

// The request hook's sandbox defines this global; the declaration is for editors only.
declare const rayrun: {
  lambda(request: { source: string; args?: unknown }): Promise<{ messages: unknown[] }>;
};

export async function transform({ request, loop }) {
  const enrichment = await rayrun.lambda({
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
