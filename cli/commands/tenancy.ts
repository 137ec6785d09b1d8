// login/use, workspaces, keys, services and tools.
import { CliError } from "../client.ts";
import { writeConfig } from "../config.ts";
import { confirm } from "../confirm.ts";
import { resolveTool, type CommandContext } from "../context.ts";
import { keyValue, table } from "../output.ts";

type Row = Record<string, unknown>;
type Page = { items: Row[]; nextCursor: string | null };

export async function login(ctx: CommandContext) {
  const url = ctx.flag("url") ?? ctx.settings.url;
  const key = ctx.flag("key") ?? ctx.settings.key;
  if (!key) throw new CliError("pass --key (or RAYRUN_KEY)", "usage");
  // Check the key works before storing it.
  await ctx.call("GET", "/v1/limits");
  const path = writeConfig({
    url,
    key,
    ...(ctx.settings.workspace ? { workspace: ctx.settings.workspace } : {}),
  });
  ctx.out.print({ url, config: path }, () => `Logged in to ${url} (saved in ${path})`);
}

export async function use(ctx: CommandContext) {
  const workspace = ctx.arg(0, "workspace");
  await ctx.call("GET", `/v1/workspaces/${workspace}`);
  const path = writeConfig({ workspace });
  ctx.out.print({ workspace, config: path }, () => `Using workspace ${workspace}`);
}

export const workspaces = {
  async create(ctx: CommandContext) {
    const { data } = await ctx.call<Row>("POST", "/v1/workspaces", { body: { name: ctx.arg(0, "name") } });
    ctx.out.print(data, () => `Created workspace ${String(data.uid)} (${String(data.name)})`);
  },
  async show(ctx: CommandContext) {
    const { data } = await ctx.call<Row>("GET", `/v1/workspaces/${ctx.workspace()}`);
    ctx.out.print(data, () =>
      keyValue([
        ["workspace", data.uid],
        ["name", data.name],
        ["created", `${String(data.createdAt)} by ${String(data.createdBy)}`],
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
    const { data } = await ctx.call<Row>("POST", `/v1/workspaces/${ctx.workspace()}/keys`, {
      body: { scopes, actor: ctx.required("actor") },
    });
    ctx.out.print(data, () => `Key ${String(data.id)} (shown once):\n${String(data.key)}`);
  },
  async list(ctx: CommandContext) {
    const { data } = await ctx.call<Page>("GET", `/v1/workspaces/${ctx.workspace()}/keys?limit=200`);
    ctx.out.print(data, () =>
      table(data.items, [
        ["id", (k) => k.id],
        ["actor", (k) => k.actor],
        ["scopes", (k) => (k.scopes as string[]).join(",")],
        ["revoked", (k) => k.revokedAt],
      ]),
    );
  },
  async revoke(ctx: CommandContext) {
    const id = ctx.arg(0, "id");
    const path = `/v1/workspaces/${ctx.workspace()}/keys/${id}`;
    await confirm(ctx, `revoke key ${id}`, "whoever uses it is refused from now on");
    const { data } = await ctx.call<Row>("DELETE", path);
    ctx.out.print(data, () => `Revoked ${String(data.id)}`);
  },
};

export const services = {
  async add(ctx: CommandContext) {
    const body = {
      name: ctx.arg(0, "name"),
      url: ctx.arg(1, "url"),
      payloadCapture: ctx.flags["payload-capture"] === true,
    };
    const { data } = await ctx.call<Row>("POST", `/v1/workspaces/${ctx.workspace()}/services`, { body });
    ctx.out.print(data, () => `Registered service ${String(data.uid)} (${String(data.name)})`);
  },
  async list(ctx: CommandContext) {
    const { data } = await ctx.call<Page>("GET", `/v1/workspaces/${ctx.workspace()}/services?limit=200`);
    ctx.out.print(data, () =>
      table(data.items, [
        ["uid", (s) => s.uid],
        ["name", (s) => s.name],
        ["url", (s) => s.url],
      ]),
    );
  },
  async refresh(ctx: CommandContext) {
    const path = `/v1/workspaces/${ctx.workspace()}/services/${ctx.arg(0, "service")}/refresh`;
    const { data } = await ctx.out.busy("listing the upstream's tools", () => ctx.call<Row>("POST", path));
    ctx.out.print(data, () => {
      const counts = ["added", "changed", "removed", "unchanged"].map((k) => {
        const v = data[k];
        return `${k} ${Array.isArray(v) ? v.length : typeof v === "number" ? v : 0}`;
      });
      return `Indexed: ${counts.join(", ")}`;
    });
  },
  async delete(ctx: CommandContext) {
    const service = ctx.arg(0, "service");
    const path = `/v1/workspaces/${ctx.workspace()}/services/${service}`;
    await confirm(ctx, `delete service ${service}`, "its tools can no longer be called");
    const { data } = await ctx.call<Row>("DELETE", path);
    ctx.out.print(data ?? { deleted: true }, () => "Deleted");
  },
};

export const tools = {
  async list(ctx: CommandContext) {
    const { data } = await ctx.call<Page>("GET", `/v1/workspaces/${ctx.workspace()}/tools?limit=200`);
    ctx.out.print(data, () =>
      table(data.items, [
        ["uid", (t) => t.uid],
        ["name", (t) => t.publicName ?? t.name],
        ["review", (t) => t.reviewState],
        ["definition", (t) => (typeof t.definitionHash === "string" ? t.definitionHash.slice(0, 12) : null)],
      ]),
    );
  },
  async accept(ctx: CommandContext) {
    const tool = await resolveTool(ctx);
    const { data } = await ctx.call<Row>(
      "POST",
      `/v1/workspaces/${ctx.workspace()}/tools/${tool}/review/accept`,
    );
    ctx.out.print(data, () => `Accepted the current definition of ${tool}`);
  },
};
