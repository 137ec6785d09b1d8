// `rayrun config show|edit|set|unset`: the workspace config document
// (`GET/PUT /v1/workspaces/{ws}/config`). Every write carries If-Match with the
// ETag of the read it was based on, so a concurrent change is never overwritten.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { InferResponseType } from "hono/client";
import type { Api } from "../client.ts";
import { CliError } from "../client.ts";
import type { CommandContext } from "../context.ts";
import { table } from "../output.ts";

type Row = Record<string, unknown>;

type ConfigRoutes = Api["v1"]["workspaces"][":ws"]["config"];
/** The config in force (what was stored, with defaults filled in), its version and ETag. */
export type StoredConfig = InferResponseType<ConfigRoutes["$get"], 200>;

const configOf = (ctx: CommandContext) => ctx.api.v1.workspaces[":ws"].config;
const wsParam = (ctx: CommandContext) => ({ param: { ws: ctx.workspace() } });

export async function readStoredConfig(ctx: CommandContext): Promise<StoredConfig> {
  const res = await configOf(ctx).$get(wsParam(ctx));
  const data = await res.json();
  return { ...data, etag: res.headers.get("etag") ?? data.etag };
}

async function writeConfig(ctx: CommandContext, document: Row, etag: string): Promise<StoredConfig> {
  // The API validates the document (400 invalid_request with the refused fields).
  const json = document as Parameters<ConfigRoutes["$put"]>[0]["json"];
  const res = await configOf(ctx).$put({ ...wsParam(ctx), json }, { headers: { "if-match": etag } });
  const data = await res.json();
  return { ...data, etag: res.headers.get("etag") ?? data.etag };
}

const isStale = (error: unknown) => error instanceof CliError && error.status === 412;

const isObject = (value: unknown): value is Row =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** JSON with object keys sorted, so two documents differing only in key order compare equal. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).toSorted();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * `[path, JSON value]` lines for every leaf. An object whose keys contain a dot
 * (model names such as gpt-4.1) stays whole, so every printed path can be given to `set`.
 */
function leaves(value: unknown, prefix: string, out: [string, string][]): [string, string][] {
  const keys = isObject(value) ? Object.keys(value) : [];
  if (isObject(value) && keys.length > 0 && keys.every((k) => !k.includes("."))) {
    for (const key of keys) leaves(value[key], prefix ? `${prefix}.${key}` : key, out);
  } else out.push([prefix, JSON.stringify(value)]);
  return out;
}

function splitPath(path: string): string[] {
  const segments = path.split(".");
  if (segments.some((s) => s === "")) throw new CliError(`${path} is not a dotted path like a.b.c`, "usage");
  return segments;
}

/** The object holding the path's last segment, created along the way when `create`. */
function parentOf(document: Row, segments: string[], create: boolean): Row | undefined {
  let node = document;
  for (const [i, segment] of segments.slice(0, -1).entries()) {
    const next = node[segment];
    if (next === undefined) {
      if (!create) return undefined;
      node[segment] = {};
    } else if (!isObject(next)) {
      const where = segments.slice(0, i + 1).join(".");
      throw new CliError(`${where} is ${JSON.stringify(next)}, not an object: set ${where} whole`, "usage");
    }
    node = node[segment] as Row;
  }
  return node;
}

/** Where V8's message says JSON.parse stopped in `text`: "at position N", or the end when it ended early. */
function statedPosition(text: string, message: string): number | undefined {
  const at = /at position (\d+)/.exec(message)?.[1];
  if (at !== undefined) return Number(at);
  return /Unexpected end of JSON input/.test(message) ? text.length : undefined;
}

/** Whether `text` is JSON, or the start of some (`{"a":`): the parser stopped only at its end. */
function jsonSoFar(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch (error) {
    return statedPosition(text, (error as Error).message) === text.length;
  }
}

/**
 * Where JSON.parse gave up on `text`. V8's message says so for most errors, not for an unexpected
 * token ("Unexpected token ']', "[1,2,]" is not valid JSON"): then it is the end of the longest
 * prefix that could still become JSON (a value typed on a command line is short).
 */
function jsonErrorAt(text: string, message: string): number {
  const stated = statedPosition(text, message);
  if (stated !== undefined) return stated;
  for (let end = 1; end <= Math.min(text.length, 4096); end++)
    if (!jsonSoFar(text.slice(0, end))) return end - 1;
  return text.length;
}

/** The line of `text` holding `at`, cut to about 70 characters around it, and a caret under it. */
function caret(text: string, at: number): string[] {
  const start = text.lastIndexOf("\n", at - 1) + 1;
  const end = text.indexOf("\n", at);
  let line = text.slice(start, end === -1 ? undefined : end);
  let column = at - start;
  if (column > 50) {
    line = `…${line.slice(column - 40)}`;
    column = 41;
  }
  if (line.length > 70) line = `${line.slice(0, 70)}…`;
  return [`  ${line}`, `  ${" ".repeat(column)}^`];
}

/**
 * A value as typed: JSON when it parses (numbers, booleans, objects, quoted strings), else the text.
 * Text that starts as JSON does (`{`, `[` or `"`) was meant as JSON: stored as a string it would only
 * be refused by the config's schema, for being a string, so it is refused here, saying where it breaks.
 */
function parseValue(path: string, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    if (!/^\s*[[{"]/.test(text)) return text;
    const { message } = error as Error;
    const at = jsonErrorAt(text, message);
    // The position, which V8 also gives in words ("… in JSON at position 21 (line 1 column 22)"), is
    // said once, with the caret under it.
    const reason = message
      .replace(/ at position \d+.*$/, "")
      .replace(/ in JSON$/, "")
      .replace(/, "[\s\S]*" is not valid JSON$/, "");
    const lines = text.slice(0, at).split("\n");
    const where =
      lines.length > 1
        ? `line ${lines.length} column ${(lines.at(-1) ?? "").length + 1}`
        : `character ${at + 1}`;
    throw new CliError(
      [
        `the value for ${path} is not valid JSON: ${reason} at ${where}; nothing saved`,
        ...caret(text, at),
      ].join("\n"),
      "usage",
    );
  }
}

/**
 * Read, change, write under If-Match. A change made meanwhile by someone else
 * makes the write fail with 412; the change is then applied again to the newer config.
 */
async function update(
  ctx: CommandContext,
  change: (draft: Row) => boolean,
): Promise<{ changed: boolean; stored: StoredConfig }> {
  for (let attempt = 1; ; attempt++) {
    const current = await readStoredConfig(ctx);
    const draft = structuredClone(current.config);
    if (!change(draft)) return { changed: false, stored: current };
    try {
      return { changed: true, stored: await writeConfig(ctx, draft, current.etag) };
    } catch (error) {
      if (isStale(error) && attempt < 3) continue;
      throw error;
    }
  }
}

function runEditor(file: string): void {
  // VISUAL before EDITOR, as git and crontab do; empty variables count as unset.
  const editor = process.env.VISUAL || process.env.EDITOR || "vi";
  // Through the shell, so an editor given with arguments ("code --wait") works.
  const run = spawnSync("sh", ["-c", `${editor} "$1"`, "sh", file], { stdio: "inherit" });
  if (run.error)
    throw new CliError(`cannot start the editor (${editor}): ${run.error.message}`, "editor_failed");
  if (run.status !== 0) {
    throw new CliError(
      `the editor (${editor}) exited with ${run.status === null ? `signal ${String(run.signal)}` : `status ${run.status}`}; nothing saved`,
      "editor_failed",
    );
  }
}

export const config = {
  async show(ctx: CommandContext) {
    const stored = await readStoredConfig(ctx);
    ctx.out.print(stored, () => {
      const meta =
        stored.version === 0
          ? "Workspace config: defaults (never changed)"
          : `Workspace config version ${stored.version}, updated ${String(stored.updatedAt)} by ${String(stored.updatedBy)}`;
      const rows = leaves(stored.config, "", []);
      return `${meta}\n\n${table(rows, [
        ["key", ([path]) => path],
        ["value", ([, value]) => value],
      ])}`;
    });
  },

  async edit(ctx: CommandContext) {
    const stored = await readStoredConfig(ctx);
    const dir = mkdtempSync(join(tmpdir(), "rayrun-config-"));
    const file = join(dir, `${ctx.workspace()}.json`);
    writeFileSync(file, `${JSON.stringify(stored.config, null, 2)}\n`, { mode: 0o600 });
    try {
      runEditor(file);
    } catch (error) {
      // An editor that failed or was quit with an error (vim's :cq) means: abandon the edit.
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
    const text = readFileSync(file, "utf8");
    const kept = `Your edit is kept in ${file}.`;
    let edited: unknown;
    try {
      edited = JSON.parse(text) as unknown;
    } catch (error) {
      throw new CliError(
        `the edited config is not valid JSON (${(error as Error).message}); nothing saved. ${kept}`,
        "invalid_json",
      );
    }
    if (!isObject(edited))
      throw new CliError(`the config must be a JSON object; nothing saved. ${kept}`, "invalid_json");
    if (canonical(edited) === canonical(stored.config)) {
      rmSync(dir, { recursive: true, force: true });
      ctx.out.print({ changed: false, version: stored.version }, () => "No changes");
      return;
    }
    let saved: StoredConfig;
    try {
      saved = await writeConfig(ctx, edited, stored.etag);
    } catch (error) {
      if (isStale(error)) {
        const now = (error as CliError).body as { version?: number } | undefined;
        throw new CliError(
          `the workspace config changed while you were editing (it is now version ${String(now?.version ?? "?")}); nothing saved. Run \`rayrun config edit\` again to retry on the current config. ${kept}`,
          "precondition_failed",
          412,
          (error as CliError).body,
        );
      }
      // The refused fields travel in the problem body, which the error report lists.
      if (!(error instanceof CliError)) throw error;
      throw new CliError(`${error.message} Nothing saved. ${kept}`, error.code, error.status, error.body);
    }
    rmSync(dir, { recursive: true, force: true });
    ctx.out.print({ changed: true, ...saved }, () => `Saved workspace config version ${saved.version}`);
  },

  async set(ctx: CommandContext) {
    const path = ctx.arg(0, "dotted.path");
    const value = parseValue(path, ctx.arg(1, "value"));
    const segments = splitPath(path);
    const last = segments.at(-1) ?? "";
    const { changed, stored } = await update(ctx, (draft) => {
      const parent = parentOf(draft, segments, true);
      if (parent === undefined || canonical(parent[last]) === canonical(value)) return false;
      parent[last] = value;
      return true;
    });
    ctx.out.print({ changed, ...stored }, () =>
      changed
        ? `Set ${path} = ${JSON.stringify(value)} (config version ${stored.version})`
        : `No change: ${path} is already ${JSON.stringify(value)}`,
    );
  },

  async unset(ctx: CommandContext) {
    const path = ctx.arg(0, "dotted.path");
    const segments = splitPath(path);
    const last = segments.at(-1) ?? "";
    const { changed, stored } = await update(ctx, (draft) => {
      const parent = parentOf(draft, segments, false);
      if (parent === undefined || !(last in parent)) return false;
      delete parent[last];
      return true;
    });
    ctx.out.print({ changed, ...stored }, () =>
      changed
        ? `Removed ${path} (config version ${stored.version}; a setting with a default is back to it)`
        : `No change: ${path} is not set`,
    );
  },
};
