// `rayrun hooks …`: the lifecycle of one tool's adapter.
import { resolveTool, type CommandContext } from "../context.ts";
import { jsonFlag, lifecycleCommands, printLogs, printTestRun, type Row } from "./lifecycle.ts";

async function hookPath(ctx: CommandContext): Promise<string> {
  return `/v1/workspaces/${ctx.workspace()}/tools/${await resolveTool(ctx)}/hook`;
}

export const hooks = {
  ...lifecycleCommands({ base: hookPath, first: 0 }),

  async test(ctx: CommandContext) {
    const stage = ctx.required("stage");
    const version = ctx.flag("version");
    const body = {
      stage,
      ...(ctx.flag("arguments") ? { arguments: jsonFlag(ctx, "arguments") } : {}),
      ...(ctx.flag("result") ? { result: jsonFlag(ctx, "result") } : {}),
      ...(version ? { version: Number(version) } : {}),
    };
    const { data } = await ctx.call<Row>("POST", `${await hookPath(ctx)}/test`, { body });
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
