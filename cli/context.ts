import type { InferResponseType } from "hono/client";
import {
  type Api,
  apiClient,
  CliError,
  type Connection,
  fileTestClient,
  jsonOf,
  lifecycleClient,
  toolConsoleClient,
} from "./client.ts";
import type { Settings } from "./config.ts";
import type { Output } from "./output.ts";

export interface Flags {
  [name: string]: string | boolean | undefined;
}

/** What every command gets: the connection, the chosen workspace, output, its arguments. */
export class CommandContext {
  readonly conn: Connection;
  readonly settings: Settings;
  readonly out: Output;
  readonly flags: Flags;
  readonly args: string[];
  /** The API, typed by its routes; a failed call throws a CliError. */
  readonly api: Api;
  constructor(settings: Settings, out: Output, flags: Flags, args: string[]) {
    this.settings = settings;
    this.out = out;
    this.flags = flags;
    this.args = args;
    this.conn = { url: settings.url, key: settings.key };
    this.api = apiClient(this.conn);
  }

  /** The lifecycle routes under a target's base path (`…/tools/{tool}/hook`, `…/files/{path}`). */
  lifecycle(base: string) {
    return lifecycleClient(this.conn, base);
  }

  /** A tool adapter's test console and declarations under its base path. */
  toolConsole(base: string) {
    return toolConsoleClient(this.conn, base);
  }

  /** A workspace file's test console under its base path. */
  fileTest(base: string) {
    return fileTestClient(this.conn, base);
  }

  workspace(): string {
    if (!this.settings.workspace) {
      throw new CliError(
        "no workspace: pass --workspace, set RAYRUN_WORKSPACE or run `rayrun use <ws>`",
        "usage",
      );
    }
    return this.settings.workspace;
  }

  flag(name: string): string | undefined {
    const value = this.flags[name];
    return typeof value === "string" ? value : undefined;
  }

  required(name: string): string {
    const value = this.flag(name);
    if (value === undefined) throw new CliError(`--${name} is required`, "usage");
    return value;
  }

  arg(index: number, name: string): string {
    const value = this.args[index];
    if (value === undefined) throw new CliError(`missing <${name}>`, "usage");
    return value;
  }

  /** A positive integer argument such as a version number. */
  number(index: number, name: string): number {
    const value = Number(this.arg(index, name));
    if (!Number.isInteger(value) || value < 1)
      throw new CliError(`<${name}> must be a positive integer`, "usage");
    return value;
  }
}

/** A tool by uid or by (public) name; names that match several tools are refused. */
export async function resolveTool(ctx: CommandContext): Promise<string> {
  const wanted = ctx.required("tool");
  if (wanted.startsWith("tool_")) return wanted;
  const list = ctx.api.v1.workspaces[":ws"].tools.$get;
  const matches: InferResponseType<typeof list, 200>["items"] = [];
  let cursor: string | null = null;
  do {
    const page: InferResponseType<typeof list, 200> = await jsonOf(
      list({ param: { ws: ctx.workspace() }, query: { limit: "200", ...(cursor ? { cursor } : {}) } }),
    );
    matches.push(...page.items.filter((t) => t.name === wanted));
    cursor = page.nextCursor;
  } while (cursor);
  const [first, second] = matches;
  if (!first) throw new CliError(`no tool named ${wanted} in workspace ${ctx.workspace()}`, "not_found");
  if (second) throw new CliError(`${wanted} names several tools; pass its uid`, "ambiguous_tool");
  return first.uid;
}
