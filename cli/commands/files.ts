// `rayrun files …`: workspace files (`lib/…` lambdas, `plugins/…` plugins),
// with the same lifecycle commands as `rayrun hooks`; the file's path is the
// first argument (`rayrun files deploy lib/policy.ts 2 --channel active`).
import type { InferResponseType } from "hono/client";
import { type Api, CliError, jsonOf } from "../client.ts";
import type { CommandContext } from "../context.ts";
import { readLocalJson } from "../local-file.ts";
import { table } from "../output.ts";
import { syntaxErrors } from "../parse-check.ts";
import { jsonFlag, lifecycleCommands, printLogs, printTestRun, runTest } from "./lifecycle.ts";

type FileItem = InferResponseType<Api["v1"]["workspaces"][":ws"]["files"]["$get"], 200>["items"][number];

/** `…/files/{path}`: the path travels as one URL-encoded segment. */
async function filePath(ctx: CommandContext): Promise<string> {
  const path = ctx.arg(0, "path");
  return `/v1/workspaces/${ctx.workspace()}/files/${encodeURIComponent(path)}`;
}

/** The revision a listed file's channel points at, if any. */
const deployed = (file: FileItem, channel: "active" | "shadow") =>
  file.deployments[channel]?.revisionId ?? null;

export const files = {
  ...lifecycleCommands({
    base: filePath,
    first: 1,
    label: (ctx) => ctx.arg(0, "path"),
    // The API has no stateless compile for workspace files. A source it could not format did not
    // parse: the same parser, run here, says where. `files test` and `deploy` report the rest.
    check: async (_ctx, draft) =>
      draft.formatted || draft.source.trim() === "" ? [] : syntaxErrors(draft.source),
  }),

  async list(ctx: CommandContext) {
    const query: Record<string, string> = { limit: ctx.flag("limit") ?? "50" };
    for (const name of ["kind", "cursor"]) {
      const value = ctx.flag(name);
      if (value !== undefined) query[name] = value;
    }
    const data = await jsonOf(
      ctx.api.v1.workspaces[":ws"].files.$get({ param: { ws: ctx.workspace() }, query }),
    );
    ctx.out.print(data, () => {
      const rows = table(data.items, [
        ["path", (r) => r.path],
        ["kind", (r) => r.kind],
        ["version", (r) => r.version],
        ["active", (r) => deployed(r, "active")],
        ["shadow", (r) => deployed(r, "shadow")],
      ]);
      return data.nextCursor === null ? rows : `${rows}\nmore: --cursor ${data.nextCursor}`;
    });
  },

  /**
   * Runs an export (lib, default main) or a hook (plugin) with --input as its one argument; its
   * rayrun.lambda and rayrun.model calls answer from the mocks in the --host-calls file.
   */
  async test(ctx: CommandContext) {
    const version = ctx.flag("version");
    const mocks = ctx.flag("host-calls");
    const name = ctx.flag("export") ?? ctx.flag("hook");
    if (ctx.flag("export") !== undefined && ctx.flag("hook") !== undefined) {
      throw new CliError("pass --export (lib files) or --hook (plugins), not both", "usage");
    }
    const body = {
      ...(ctx.flag("export") !== undefined ? { export: name } : {}),
      ...(ctx.flag("hook") !== undefined ? { hook: name } : {}),
      input: ctx.flag("input") === undefined ? {} : jsonFlag(ctx, "input"),
      ...(mocks === undefined ? {} : { hostCalls: readLocalJson(mocks) }),
      ...(version ? { version: Number(version) } : {}),
    };
    const test = ctx.fileTest(await filePath(ctx)).test;
    // The API refuses input that is not JSON it accepts (400 invalid_request).
    const json = body as Parameters<typeof test.$post>[0]["json"];
    const data = await runTest(ctx, body, () => jsonOf(test.$post({ json })));
    printTestRun(ctx, data, () => ("value" in data ? JSON.stringify(data.value) : "(undefined: no change)"));
    // A mock no call reached, or a call no mock answered, is worth a look even when the run passed.
    const usage = data.hostCalls;
    if (usage !== undefined && (usage.unused > 0 || usage.unmatched > 0)) {
      ctx.out.warn([
        `host calls: ${usage.used} mocks used, ${usage.unused} unused, ${usage.unmatched} calls without a matching mock`,
      ]);
    }
  },

  async logs(ctx: CommandContext) {
    const lifecycle = ctx.lifecycle(await filePath(ctx));
    await printLogs(ctx, (query) => lifecycle.logs.$get({ query }));
  },
};
