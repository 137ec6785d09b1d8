// Dev-only Worker for `npm run bench:stages` (bench/stages.ts): runs tool-adapter
// stages with the gateway's own sandbox (workerd's wasm, memory images), so
// that their cost in workerd can be timed from outside; a Worker's clock
// stands still during CPU work. The gateway bench times stages too, but
// only inside whole tool calls, behind an upstream and a Durable Object.
//   GET /                       answers at once (the baseline)
//   GET /stages?code=C&stage=S&n=N
//                               runs N (1-4) stages S of C, one after another
import { createAdapterSandbox } from "../../shared/sandbox/adapter";
import { workerdEngines } from "../../shared/sandbox/wasm-workerd";
import { ADAPTER_2KB, adapterCode, BENCH_CONTEXT as context } from "../../test/shared/sandbox/code";

const sandbox = createAdapterSandbox(workerdEngines);

const CODES: Readonly<Record<string, string>> = {
  trivial: adapterCode(`
    before({ arguments: args }) { return { action: "continue", arguments: args }; },
    after({ result }) { return { action: "return", result }; },
  `),
  "2kb": ADAPTER_2KB,
};

const input = {
  arguments: { query: "The Workers release", limit: 5 },
  result: {
    items: [
      { title: "Release notes matching workers release", score: 0.9 },
      { title: "Older release", score: 0.4 },
    ],
  },
};
const MAX_STAGES = 4;

export default {
  async fetch(request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/") return new Response("ok");
    const code = CODES[url.searchParams.get("code") ?? ""];
    if (code === undefined) return new Response("unknown code", { status: 400 });
    if (url.pathname !== "/stages") return new Response("not found", { status: 404 });
    const stage = url.searchParams.get("stage") === "after" ? "after" : "before";
    const n = Math.max(1, Math.min(MAX_STAGES, Number(url.searchParams.get("n")) || 1));
    for (let i = 0; i < n; i++) {
      const report = await sandbox.runAdapterStage({ code, stage, context, ...input });
      if (!report.outcome.ok) return Response.json(report.outcome.error, { status: 500 });
    }
    return Response.json((await workerdEngines.get()).images?.stats() ?? null);
  },
} satisfies ExportedHandler;
