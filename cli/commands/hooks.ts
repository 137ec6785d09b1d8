// `rayrun hooks …`: the lifecycle of one tool's adapter.
import { CliError, jsonOf, type SourceDiagnostic } from "../client.ts";
import { resolveTool, type CommandContext } from "../context.ts";
import {
  type DraftCheck,
  jsonFlag,
  lifecycleCommands,
  printLogs,
  printTestRun,
  runTest,
} from "./lifecycle.ts";

async function hookPath(ctx: CommandContext): Promise<string> {
  return `/v1/workspaces/${ctx.workspace()}/tools/${await resolveTool(ctx)}/hook`;
}

/** The API's stateless compile: the same diagnostics a test or deploy of this source would report. */
async function compileCheck(ctx: CommandContext, draft: DraftCheck): Promise<SourceDiagnostic[]> {
  try {
    await ctx.api.v1.compile.$post({ json: { source: draft.source, config: draft.config } });
    return [];
  } catch (error) {
    if (!(error instanceof CliError) || error.code !== "compile_failed") throw error;
    const fallback: SourceDiagnostic = { message: error.message, line: 1, column: 1 };
    return error.diagnostics.length > 0 ? [...error.diagnostics] : [fallback];
  }
}

export const hooks = {
  ...lifecycleCommands({
    base: hookPath,
    first: 0,
    label: (ctx) => `the hook of ${ctx.required("tool")}`,
    check: compileCheck,
  }),

  async test(ctx: CommandContext) {
    const stage = ctx.required("stage");
    const version = ctx.flag("version");
    const body = {
      stage,
      ...(ctx.flag("arguments") ? { arguments: jsonFlag(ctx, "arguments") } : {}),
      ...(ctx.flag("result") ? { result: jsonFlag(ctx, "result") } : {}),
      ...(version ? { version: Number(version) } : {}),
    };
    const test = ctx.toolConsole(await hookPath(ctx)).test;
    // The API refuses a stage or arguments it does not accept (400 invalid_request).
    const json = body as Parameters<typeof test.$post>[0]["json"];
    const data = await runTest(ctx, body, () => jsonOf(test.$post({ json })));
    printTestRun(ctx, data, (passed) => JSON.stringify(passed.outcome));
  },

  async types(ctx: CommandContext) {
    const res = await ctx.toolConsole(await hookPath(ctx)).types.$get();
    process.stdout.write(await res.text());
  },

  /** One tool's runs with --tool, else every hook's runs in the workspace. */
  async logs(ctx: CommandContext) {
    if (ctx.flag("tool")) {
      const lifecycle = ctx.lifecycle(await hookPath(ctx));
      await printLogs(ctx, (query) => lifecycle.logs.$get({ query }));
    } else {
      const param = { ws: ctx.workspace() };
      await printLogs(ctx, (query) => ctx.api.v1.workspaces[":ws"].hooks.logs.$get({ param, query }));
    }
  },
};
