// Runs the tutorials' adapter snippets as the product does: compiled by the
// compiler `POST /v1/compile` uses, one stage run by the runner the gateway and
// the test console share, against the schemas the demo upstream really lists
// (registered in a workspace of its own, as the tutorial registers it).
import { runAdapterStep, type StepRun } from "../../shared/adapter/steps";
import type { Json, JsonObject } from "../../shared/json";
import type { ToolCallContext } from "../../shared/sandbox/types";
import { compileToolAdapter, type CompiledAdapter } from "../../workers/api/compiler";
import { call, json, setup, type Gw } from "../workers/gateway/harness";
import { snippet, snippetObject } from "./snippets";
import type { ToolSchemas } from "./tool-schemas";

export type { ToolSchemas };

interface IndexedTool {
  inputSchema: JsonObject;
  outputSchema: JsonObject | null;
}

let demo: Promise<Record<string, ToolSchemas>> | undefined;

/** The demo upstream's tools by name, indexed by the API (one workspace for every reader). */
export function demoTools(): Promise<Record<string, ToolSchemas>> {
  demo ??= (async () => {
    const g: Gw = await setup();
    const entries = await Promise.all(
      Object.entries(g.tools).map(async ([name, uid]) => {
        const tool = await json<IndexedTool>(await call("GET", `/v1/workspaces/${g.ws}/tools/${uid}`), 200);
        const schemas: ToolSchemas = { name, inputSchema: tool.inputSchema };
        if (tool.outputSchema !== null) schemas.outputSchema = tool.outputSchema;
        return [name, schemas] as const;
      }),
    );
    return Object.fromEntries(entries);
  })();
  return demo;
}

export async function demoTool(name: string): Promise<ToolSchemas> {
  const tool = (await demoTools())[name];
  if (tool === undefined) throw new Error(`the demo upstream has no tool ${name}`);
  return tool;
}

/** The retrieval lambda of the request hooks page, as `npm start` deploys it (lib/fast-rag.ts). */
export { default as FAST_RAG_LAMBDA } from "../../dev/examples/fast-rag.ts?raw";

/** The call every stage below runs in. */
export const CALLED_AT = "2026-03-04T05:06:07.089Z";
export const REQUEST_ID = "req_docs_0001";

/** Compiles `docs/snippets/<path>` with `config` (a snippet path of a JSON file, or a value); throws on diagnostics. */
export async function compileSnippet(path: string, config?: string | JsonObject): Promise<CompiledAdapter> {
  const compiled = await compileToolAdapter({
    source: snippet(path),
    ...(config === undefined ? {} : { config: typeof config === "string" ? snippetObject(config) : config }),
  });
  if (!compiled.ok) throw new Error(`${path} does not compile: ${JSON.stringify(compiled.error)}`);
  return compiled.value;
}

export interface StageInput {
  tool: ToolSchemas;
  stage: "before" | "after";
  arguments?: Json;
  result?: Json;
  config?: string | JsonObject;
}

/** One stage of a snippet, with the validation around it, as a call of `tool` runs it. */
export async function runSnippet(path: string, input: StageInput): Promise<StepRun> {
  const adapter = await compileSnippet(path, input.config);
  const context: ToolCallContext = {
    calledAt: CALLED_AT,
    requestId: REQUEST_ID,
    workspaceUid: "ws_docs",
    connectionId: "svc_docs",
    toolUid: "tool_docs",
    toolName: input.tool.name,
    config: adapter.config,
  };
  return runAdapterStep({
    adapter,
    stage: input.stage,
    upstream: {
      ...(input.tool.inputSchema === undefined ? {} : { inputSchema: input.tool.inputSchema }),
      ...(input.tool.outputSchema === undefined ? {} : { outputSchema: input.tool.outputSchema }),
    },
    context,
    ...(input.arguments === undefined ? {} : { arguments: input.arguments }),
    ...(input.result === undefined ? {} : { result: input.result }),
  });
}

/** The first compile in a worker loads esbuild's wasm: tens of seconds on a busy machine. */
export async function warmCompiler(): Promise<void> {
  await compileSnippet("adapters/search.ts", "adapters/search.config.json");
}
