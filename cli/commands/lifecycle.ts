// The lifecycle commands every target has — a tool's adapter (`rayrun hooks`)
// and a workspace file (`rayrun files`) — over the same API routes under the
// target's base path. Each command family says where the base path comes from
// and where its positional arguments start.
import type { InferResponseType } from "hono/client";
import { CliError, jsonOf, type SourceDiagnostic } from "../client.ts";
import { confirm } from "../confirm.ts";
import type { CommandContext } from "../context.ts";
import { draftSummary, saveReport, type Lifecycle } from "../draft-view.ts";
import { readLocalFile, readLocalJson } from "../local-file.ts";
import { fuel, table } from "../output.ts";

type Command = (ctx: CommandContext) => Promise<void>;

/** A saved draft to check: the source as sent, its config, and whether the API could format (parse) it. */
export interface DraftCheck {
  source: string;
  config: unknown;
  formatted: boolean;
}

export interface Place {
  /** The target's base path: `…/tools/{tool}/hook`, `…/files/{path}`. */
  base(ctx: CommandContext): Promise<string>;
  /** Index of the first positional argument after the target (a version, a revision). */
  first: number;
  /** What a confirmation names: `the hook of echo`, `lib/policy.ts`. */
  label(ctx: CommandContext): string;
  /**
   * Why a saved draft does not compile; [] when it does. Checked on the source as sent, so
   * lines and columns point into the user's file even when the API reformatted it.
   */
  check(ctx: CommandContext, draft: DraftCheck): Promise<SourceDiagnostic[]>;
}

/** The answer of `…/logs` and `…/hooks/logs`. */
type LogAnswer = ReturnType<Lifecycle["logs"]["$get"]>;
/** A page of hook-run records, as JSON (NDJSON only when asked for, which the CLI never does). */
export type LogPage = Extract<InferResponseType<Lifecycle["logs"]["$get"], 200>, { items: unknown }>;
type DraftBody = Parameters<Lifecycle["draft"]["$put"]>[0]["json"];
type Channel = Parameters<Lifecycle["deployments"]["$post"]>[0]["json"]["channel"];
/** The log filters as query parameters. */
export type LogQuery = Record<string, string>;

/** The draft's current ETag, for commands that change it under optimistic concurrency. */
async function currentEtag(lifecycle: Lifecycle): Promise<string> {
  const { headers } = await lifecycle.index.$get();
  const etag = headers.get("etag");
  if (!etag) throw new CliError("the server sent no ETag for the draft", "missing_etag");
  return etag;
}

export function jsonFlag(ctx: CommandContext, name: string): unknown {
  const raw = ctx.flag(name);
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw new CliError(`--${name} must be JSON`, "usage");
  }
}

/** What both test consoles answer with: the outcome or the failure, and the hook's log lines. */
interface TestRun {
  ok: boolean;
  code?: unknown;
  message?: unknown;
  logs?: readonly { level: unknown; message: unknown }[];
  durationMs?: number;
  fuelUsed?: number;
}

/** Runs a test console request under a spinner; the API compiles the version first. */
export function runTest<T>(
  ctx: CommandContext,
  body: { version?: number },
  call: () => Promise<T>,
): Promise<T> {
  const version = typeof body.version === "number" ? `version ${body.version}` : "the draft";
  return ctx.out.busy(`compiling and running ${version}`, call);
}

/** A test console answer: the outcome or the failure, then the hook's log lines; exit 1 on failure. */
export function printTestRun<T extends TestRun>(
  ctx: CommandContext,
  data: T,
  outcome: (passed: Extract<T, { ok: true }>) => string,
): void {
  ctx.out.print(data, () => {
    const head = data.ok
      ? `ok: ${outcome(data as Extract<T, { ok: true }>)}`
      : `failed: ${String(data.code)}: ${String(data.message)}`;
    const logs = data.logs ?? [];
    const { durationMs, fuelUsed } = data;
    const cost =
      typeof durationMs === "number" && typeof fuelUsed === "number"
        ? [`took ${Math.round(durationMs)} ms and ${fuel(fuelUsed)}`]
        : [];
    return [head, ...logs.map((l) => `  [${String(l.level)}] ${String(l.message)}`), ...cost].join("\n");
  });
  if (!data.ok) process.exitCode = 1;
}

/** `{ stage: …, … }` from the log filter flags. */
export function logQuery(ctx: CommandContext): LogQuery {
  const params: LogQuery = {};
  for (const name of [
    "stage",
    "outcome",
    "channel",
    "kind",
    "mode",
    "revision",
    "request-id",
    "since",
    "until",
    "limit",
    "cursor",
  ]) {
    const value = ctx.flag(name);
    if (value !== undefined) params[name === "request-id" ? "requestId" : name] = value;
  }
  return params;
}

/** A page of run records, with the filters and cursor `read` was given. */
export async function printLogs(ctx: CommandContext, read: (query: LogQuery) => LogAnswer): Promise<void> {
  const data = (await jsonOf(read(logQuery(ctx)))) as LogPage;
  ctx.out.print(data, () => {
    const rows = table(data.items, [
      ["time", (r) => r.at],
      ["tool", (r) => r.toolName ?? r.target],
      ["mode", (r) => r.mode],
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
}

/** `{ param: { n } }` for the routes under `…/versions/{n}`. */
const versionParam = (n: number) => ({ param: { n: String(n) } });

export function lifecycleCommands(place: Place): Record<string, Command> {
  const version = (ctx: CommandContext) => ctx.number(place.first, "version");
  const lifecycle = async (ctx: CommandContext) => ctx.lifecycle(await place.base(ctx));
  return {
    async show(ctx) {
      const data = await jsonOf((await lifecycle(ctx)).index.$get());
      ctx.out.print(data, () => draftSummary(data));
    },

    async save(ctx) {
      const file = ctx.required("file");
      const source = readLocalFile(file);
      const configFile = ctx.flag("config");
      const body = {
        source,
        ...(configFile ? { config: readLocalJson(configFile) } : {}),
        ...(ctx.flag("note") ? { note: ctx.flag("note") } : {}),
      };
      const api = await lifecycle(ctx);
      const etag = await currentEtag(api);
      // The API validates the config (400 invalid_request with the refused fields).
      const json = body as DraftBody;
      const data = await jsonOf(api.draft.$put({ json }, { headers: { "if-match": etag } }));
      // Drafts may be incomplete, so a draft that does not compile is saved; the user is told where it fails.
      let diagnostics: SourceDiagnostic[] | undefined;
      let unchecked: CliError | undefined;
      if (!data.noop) {
        try {
          diagnostics = await ctx.out.busy("checking that it compiles", () =>
            place.check(ctx, { source, config: data.draft.config, formatted: data.draft.formatted }),
          );
        } catch (error) {
          if (!(error instanceof CliError)) throw error;
          unchecked = error;
        }
      }
      saveReport(ctx.out, { file, sent: source, saved: data, diagnostics, unchecked });
    },

    async history(ctx) {
      const limit = ctx.flag("limit") ?? "50";
      const cursor = ctx.flag("cursor");
      const data = await jsonOf(
        (await lifecycle(ctx)).versions.$get({ query: { limit, ...(cursor ? { cursor } : {}) } }),
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

    async diff(ctx) {
      const n = version(ctx);
      const data = await jsonOf((await lifecycle(ctx)).versions[":n"].diff.$get(versionParam(n)));
      ctx.out.print(data, () => {
        const { changed } = data;
        const parts = [
          ...(changed.source
            ? [typeof data.source === "string" ? data.source : "(source diff too large)"]
            : []),
          ...(changed.config
            ? [typeof data.config === "string" ? data.config : "(config diff too large)"]
            : []),
        ];
        return parts.length > 0
          ? parts.join("\n").trimEnd()
          : `No change from version ${String(data.against)}`;
      });
    },

    async restore(ctx) {
      const n = version(ctx);
      const api = await lifecycle(ctx);
      const etag = await currentEtag(api);
      const data = await jsonOf(
        api.versions[":n"].restore.$post(versionParam(n), { headers: { "if-match": etag } }),
      );
      ctx.out.print(data, () => `Restored version ${n} as version ${data.version}`);
    },

    async deploy(ctx) {
      const n = version(ctx);
      const channel = ctx.required("channel");
      const api = await lifecycle(ctx);
      const data = await ctx.out.busy(
        `compiling, checking tests and deploying version ${n} to ${channel}`,
        // The API refuses a channel it does not know (400 invalid_request).
        () => jsonOf(api.deployments.$post({ json: { version: n, channel: channel as Channel } })),
      );
      ctx.out.print(
        data,
        () =>
          `Deployed version ${n} to ${channel} as revision ${data.revision.id}${data.reused ? " (reused an identical compile)" : ""}`,
      );
    },

    async revisions(ctx) {
      const data = await jsonOf(
        (await lifecycle(ctx)).revisions.$get({ query: { limit: ctx.flag("limit") ?? "50" } }),
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

    async rollback(ctx) {
      const revision = ctx.arg(place.first, "revision");
      const channel = ctx.flag("channel");
      const data = await jsonOf(
        (await lifecycle(ctx)).rollback.$post({
          // The API refuses a channel it does not know (400 invalid_request).
          json: { revision, ...(channel ? { channel: channel as Channel } : {}) },
        }),
      );
      ctx.out.print(data, () => `Rolled ${channel ?? "active"} back to revision ${revision}`);
    },

    async reset(ctx) {
      ctx.workspace(); // a missing workspace is said before anything is asked
      await confirm(
        ctx,
        `reset ${place.label(ctx)}`,
        "this permanently removes its draft, versions and deployment revisions",
      );
      const data = await jsonOf((await lifecycle(ctx)).reset.$post());
      ctx.out.print(
        data,
        () => "Reset: draft, versions and deployment revisions removed; reset event recorded",
      );
    },

    async export(ctx) {
      // Streamed by the API, so its type is not inferred: any JSON is printed as it came.
      const res = await (await lifecycle(ctx)).export.$get();
      const data: unknown = await res.json();
      process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
    },
  };
}
