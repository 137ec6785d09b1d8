// `rayrun hooks …`: the lifecycle of one tool's adapter.
import { readFileSync } from "node:fs";
import { CliError } from "../client.ts";
import { resolveTool, type CommandContext } from "../context.ts";
import { table } from "../output.ts";

type Row = Record<string, unknown>;

async function hookPath(ctx: CommandContext): Promise<string> {
  return `/v1/workspaces/${ctx.workspace()}/tools/${await resolveTool(ctx)}/hook`;
}

/** The draft's current ETag, for commands that change it under optimistic concurrency. */
async function currentEtag(ctx: CommandContext, base: string): Promise<string> {
  const { headers } = await ctx.call("GET", base);
  const etag = headers.get("etag");
  if (!etag) throw new CliError("the server sent no ETag for the draft", "missing_etag");
  return etag;
}

function jsonFlag(ctx: CommandContext, name: string): unknown {
  const raw = ctx.flag(name);
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw new CliError(`--${name} must be JSON`, "usage");
  }
}

function readJsonFile(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as unknown;
  } catch (error) {
    throw new CliError(`cannot read JSON from ${path}: ${(error as Error).message}`, "usage");
  }
}

export const hooks = {
  async show(ctx: CommandContext) {
    const { data } = await ctx.call<Row>("GET", await hookPath(ctx));
    ctx.out.print(data);
  },

  async save(ctx: CommandContext) {
    const base = await hookPath(ctx);
    const source = readFileSync(ctx.required("file"), "utf8");
    const configFile = ctx.flag("config");
    const body = {
      source,
      ...(configFile ? { config: readJsonFile(configFile) } : {}),
      ...(ctx.flag("note") ? { note: ctx.flag("note") } : {}),
    };
    const etag = await currentEtag(ctx, base);
    const { data } = await ctx.call<Row>("PUT", `${base}/draft`, { body, headers: { "if-match": etag } });
    ctx.out.print(data, () =>
      data.noop ? "No change (identical to the draft)" : `Saved version ${String(data.version)}`,
    );
  },

  async history(ctx: CommandContext) {
    const limit = ctx.flag("limit") ?? "50";
    const cursor = ctx.flag("cursor");
    const query = `?limit=${encodeURIComponent(limit)}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const { data } = await ctx.call<{ items: Row[]; nextCursor: string | null }>(
      "GET",
      `${await hookPath(ctx)}/versions${query}`,
    );
    ctx.out.print(data, () =>
      [
        table(data.items, [
          ["version", (v) => v.version],
          ["time", (v) => v.createdAt],
          ["actor", (v) => v.actor],
          ["channel", (v) => v.channel],
          ["note", (v) => v.note],
        ]),
        ...(data.nextCursor ? [`(more: --cursor ${data.nextCursor})`] : []),
      ].join("\n"),
    );
  },

  async diff(ctx: CommandContext) {
    const n = ctx.number(0, "version");
    const { data } = await ctx.call<Row>("GET", `${await hookPath(ctx)}/versions/${n}/diff`);
    ctx.out.print(data, () => {
      const changed = data.changed as { source: boolean; config: boolean };
      const parts = [
        ...(changed.source
          ? [typeof data.source === "string" ? data.source : "(source diff too large)"]
          : []),
        ...(changed.config
          ? [typeof data.config === "string" ? data.config : "(config diff too large)"]
          : []),
      ];
      return parts.length > 0 ? parts.join("\n").trimEnd() : `No change from version ${String(data.against)}`;
    });
  },

  async restore(ctx: CommandContext) {
    const n = ctx.number(0, "version");
    const base = await hookPath(ctx);
    const etag = await currentEtag(ctx, base);
    const { data } = await ctx.call<Row>("POST", `${base}/versions/${n}/restore`, {
      headers: { "if-match": etag },
    });
    ctx.out.print(data, () => `Restored version ${n} as version ${String(data.version)}`);
  },

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
    ctx.out.print(data, () => {
      const head = data.ok
        ? `ok: ${JSON.stringify(data.outcome)}`
        : `failed: ${String(data.code)}: ${String(data.message)}`;
      const logs = (data.logs as Row[] | undefined) ?? [];
      return [head, ...logs.map((l) => `  [${String(l.level)}] ${String(l.message)}`)].join("\n");
    });
    if (!data.ok) process.exitCode = 1;
  },

  async deploy(ctx: CommandContext) {
    const version = ctx.number(0, "version");
    const channel = ctx.required("channel");
    ctx.out.progress(`compiling, checking tests and deploying version ${version} to ${channel}`);
    const { data } = await ctx.call<Row>("POST", `${await hookPath(ctx)}/deployments`, {
      body: { version, channel },
    });
    const revision = data.revision as Row;
    ctx.out.print(
      data,
      () =>
        `Deployed version ${version} to ${channel} as revision ${String(revision.id)}${data.reused ? " (reused an identical compile)" : ""}`,
    );
  },

  async revisions(ctx: CommandContext) {
    const { data } = await ctx.call<{ items: Row[]; nextCursor: string | null }>(
      "GET",
      `${await hookPath(ctx)}/revisions?limit=${encodeURIComponent(ctx.flag("limit") ?? "50")}`,
    );
    ctx.out.print(data, () =>
      table(data.items, [
        ["revision", (r) => r.id],
        ["version", (r) => r.version],
        ["bytes", (r) => r.compiledBytes],
        ["time", (r) => r.createdAt],
        ["actor", (r) => r.actor],
      ]),
    );
  },

  async rollback(ctx: CommandContext) {
    const revision = ctx.arg(0, "revision");
    const channel = ctx.flag("channel");
    const { data } = await ctx.call<Row>("POST", `${await hookPath(ctx)}/rollback`, {
      body: { revision, ...(channel ? { channel } : {}) },
    });
    ctx.out.print(data, () => `Rolled ${channel ?? "active"} back to revision ${revision}`);
  },

  async reset(ctx: CommandContext) {
    if (ctx.flags.yes !== true) {
      throw new CliError("reset permanently removes the draft, versions and revisions; pass --yes", "usage");
    }
    const { data } = await ctx.call<Row>("POST", `${await hookPath(ctx)}/reset`);
    ctx.out.print(
      data,
      () => "Reset: draft, versions and deployment revisions removed; reset event recorded",
    );
  },

  async export(ctx: CommandContext) {
    const { data } = await ctx.call<Row>("GET", `${await hookPath(ctx)}/export`);
    process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
  },

  async types(ctx: CommandContext) {
    const { data } = await ctx.call<string>("GET", `${await hookPath(ctx)}/types`, { text: true });
    process.stdout.write(data);
  },

  async logs(ctx: CommandContext) {
    const params = new URLSearchParams();
    for (const name of [
      "stage",
      "outcome",
      "channel",
      "kind",
      "revision",
      "request-id",
      "since",
      "until",
      "limit",
      "cursor",
    ]) {
      const value = ctx.flag(name);
      if (value !== undefined) params.set(name === "request-id" ? "requestId" : name, value);
    }
    const path = ctx.flag("tool")
      ? `${await hookPath(ctx)}/logs`
      : `/v1/workspaces/${ctx.workspace()}/hooks/logs`;
    const { data } = await ctx.call<{ items: Row[]; nextCursor: string | null }>(
      "GET",
      `${path}?${params.toString()}`,
    );
    ctx.out.print(data, () => {
      const rows = table(data.items, [
        ["time", (r) => r.at],
        ["tool", (r) => r.toolName ?? r.target],
        ["stage", (r) => r.stage],
        ["channel", (r) => r.channel],
        ["outcome", (r) => r.outcome],
        ["code", (r) => r.code],
        ["ms", (r) => r.durationMs],
        ["revision", (r) => r.revisionId],
        ["shadow≠", (r) => r.shadowDiffered],
        ["request", (r) => r.requestId],
      ]);
      return data.nextCursor === null ? rows : `${rows}\nmore: --cursor ${data.nextCursor}`;
    });
  },
};
