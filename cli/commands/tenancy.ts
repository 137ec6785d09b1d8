// login/use, workspaces, keys, services and tools.
import { type Api, CliError, jsonOf } from "../client.ts";
import { writeConfig } from "../config.ts";
import { confirm } from "../confirm.ts";
import { resolveTool, type CommandContext } from "../context.ts";
import { keyValue, table } from "../output.ts";

type KeyScopes = Parameters<Api["v1"]["workspaces"][":ws"]["keys"]["$post"]>[0]["json"]["scopes"];

const workspaceOf = (ctx: CommandContext) => ctx.api.v1.workspaces[":ws"];
const wsParam = (ctx: CommandContext) => ({ param: { ws: ctx.workspace() } });

export async function login(ctx: CommandContext) {
  const url = ctx.flag("url") ?? ctx.settings.url;
  const key = ctx.flag("key") ?? ctx.settings.key;
  if (!key) throw new CliError("pass --key (or RAYRUN_KEY)", "usage");
  // Check the key works before storing it.
  await ctx.api.v1.limits.$get();
  const path = writeConfig({
    url,
    key,
    ...(ctx.settings.workspace ? { workspace: ctx.settings.workspace } : {}),
  });
  ctx.out.print({ url, config: path }, () => `Logged in to ${url} (saved in ${path})`);
}

export async function use(ctx: CommandContext) {
  const workspace = ctx.arg(0, "workspace");
  await workspaceOf(ctx).$get({ param: { ws: workspace } });
  const path = writeConfig({ workspace });
  ctx.out.print({ workspace, config: path }, () => `Using workspace ${workspace}`);
}

export const workspaces = {
  async create(ctx: CommandContext) {
    const data = await jsonOf(ctx.api.v1.workspaces.$post({ json: { name: ctx.arg(0, "name") } }));
    ctx.out.print(data, () => `Created workspace ${data.uid} (${data.name})`);
  },
  async show(ctx: CommandContext) {
    const data = await jsonOf(workspaceOf(ctx).$get(wsParam(ctx)));
    ctx.out.print(data, () =>
      keyValue([
        ["workspace", data.uid],
        ["name", data.name],
        ["created", `${data.createdAt} by ${data.createdBy}`],
      ]),
    );
  },
};

export const keys = {
  async create(ctx: CommandContext) {
    const scopes = ctx
      .required("scopes")
      .split(",")
      .map((s) => s.trim());
    // The API refuses scopes it does not know (400 invalid_request).
    const json = { scopes: scopes as KeyScopes, actor: ctx.required("actor") };
    const data = await jsonOf(workspaceOf(ctx).keys.$post({ ...wsParam(ctx), json }));
    ctx.out.print(data, () => `Key ${data.id} (shown once):\n${data.key}`);
  },
  async list(ctx: CommandContext) {
    const data = await jsonOf(workspaceOf(ctx).keys.$get({ ...wsParam(ctx), query: { limit: "200" } }));
    ctx.out.print(data, () =>
      table(data.items, [
        ["id", (k) => k.id],
        ["actor", (k) => k.actor],
        ["scopes", (k) => k.scopes.join(",")],
        ["revoked", (k) => k.revokedAt],
      ]),
    );
  },
  async revoke(ctx: CommandContext) {
    const id = ctx.arg(0, "id");
    const param = { ws: ctx.workspace(), id };
    await confirm(ctx, `revoke key ${id}`, "whoever uses it is refused from now on");
    const data = await jsonOf(workspaceOf(ctx).keys[":id"].$delete({ param }));
    ctx.out.print(data, () => `Revoked ${data.id}`);
  },
};

export const services = {
  async add(ctx: CommandContext) {
    const body = {
      name: ctx.arg(0, "name"),
      url: ctx.arg(1, "url"),
      payloadCapture: ctx.flags["payload-capture"] === true,
    };
    const data = await jsonOf(workspaceOf(ctx).services.$post({ ...wsParam(ctx), json: body }));
    ctx.out.print(data, () => `Registered service ${data.uid} (${data.name})`);
  },
  async list(ctx: CommandContext) {
    const data = await jsonOf(workspaceOf(ctx).services.$get({ ...wsParam(ctx), query: { limit: "200" } }));
    ctx.out.print(data, () =>
      table(data.items, [
        ["uid", (s) => s.uid],
        ["name", (s) => s.name],
        ["url", (s) => s.url],
      ]),
    );
  },
  async refresh(ctx: CommandContext) {
    const param = { ws: ctx.workspace(), svc: ctx.arg(0, "service") };
    const refresh = workspaceOf(ctx).services[":svc"].refresh;
    const data = await ctx.out.busy("listing the upstream's tools", () => jsonOf(refresh.$post({ param })));
    ctx.out.print(data, () => {
      const counts = (["added", "changed", "removed", "unchanged"] as const).map((k) => {
        const v: unknown = data[k];
        return `${k} ${Array.isArray(v) ? v.length : typeof v === "number" ? v : 0}`;
      });
      return `Indexed: ${counts.join(", ")}`;
    });
  },
  async delete(ctx: CommandContext) {
    const service = ctx.arg(0, "service");
    const param = { ws: ctx.workspace(), svc: service };
    await confirm(ctx, `delete service ${service}`, "its tools can no longer be called");
    const data = await jsonOf(workspaceOf(ctx).services[":svc"].$delete({ param }));
    ctx.out.print(data, () => "Deleted");
  },
};

export const tools = {
  async list(ctx: CommandContext) {
    const data = await jsonOf(workspaceOf(ctx).tools.$get({ ...wsParam(ctx), query: { limit: "200" } }));
    ctx.out.print(data, () =>
      table(data.items, [
        ["uid", (t) => t.uid],
        ["name", (t) => t.name],
        ["review", (t) => t.reviewState],
        ["definition", (t) => (typeof t.definitionHash === "string" ? t.definitionHash.slice(0, 12) : null)],
      ]),
    );
  },
  async accept(ctx: CommandContext) {
    const tool = await resolveTool(ctx);
    const data = await jsonOf(
      workspaceOf(ctx).tools[":tool"].review.accept.$post({ param: { ws: ctx.workspace(), tool } }),
    );
    ctx.out.print(data, () => `Accepted the current definition of ${tool}`);
  },
};
