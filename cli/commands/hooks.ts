// `rayrun hooks …`: the lifecycle of one tool's adapter.
import { CliError, type SourceDiagnostic } from "../client.ts";
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
    await ctx.call("POST", "/v1/compile", { body: { source: draft.source, config: draft.config } });
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
    const data = await runTest(ctx, `${await hookPath(ctx)}/test`, body);
    printTestRun(ctx, data, () => JSON.stringify(data.outcome));
  },

  async types(ctx: CommandContext) {
    const { data } = await ctx.call<string>("GET", `${await hookPath(ctx)}/types`, { text: true });
    process.stdout.write(data);
  },

  /** One tool's runs with --tool, else every hook's runs in the workspace. */
  async logs(ctx: CommandContext) {
    const path = ctx.flag("tool")
      ? `${await hookPath(ctx)}/logs`
      : `/v1/workspaces/${ctx.workspace()}/hooks/logs`;
    await printLogs(ctx, path);
  },
};
