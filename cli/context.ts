import { CliError, request, type ApiResponse, type Connection, type RequestOptions } from "./client.ts";
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
  constructor(settings: Settings, out: Output, flags: Flags, args: string[]) {
    this.settings = settings;
    this.out = out;
    this.flags = flags;
    this.args = args;
    this.conn = { url: settings.url, key: settings.key };
  }

  call<T = unknown>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<T>> {
    return request<T>(this.conn, method, path, options);
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

interface ToolRow {
  uid: string;
  name: string;
  publicName?: string;
}

/** A tool by uid or by (public) name; names that match several tools are refused. */
export async function resolveTool(ctx: CommandContext): Promise<string> {
  const wanted = ctx.required("tool");
  if (wanted.startsWith("tool_")) return wanted;
  const matches: ToolRow[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
    const page: ApiResponse<{ items: ToolRow[]; nextCursor: string | null }> = await ctx.call(
      "GET",
      `/v1/workspaces/${ctx.workspace()}/tools?limit=200${query}`,
    );
    matches.push(...page.data.items.filter((t) => t.publicName === wanted || t.name === wanted));
    cursor = page.data.nextCursor;
  } while (cursor);
  const [first, second] = matches;
  if (!first) throw new CliError(`no tool named ${wanted} in workspace ${ctx.workspace()}`, "not_found");
  if (second) throw new CliError(`${wanted} names several tools; pass its uid`, "ambiguous_tool");
  return first.uid;
}
