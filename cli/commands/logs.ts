// `rayrun logs [--follow]`: hook-run records of the whole workspace, with the
// filters `rayrun hooks logs` takes. `--follow` prints the latest few, then
// polls and prints each new record as it arrives until interrupted (Ctrl-C exits 0).
import { setTimeout as delay } from "node:timers/promises";
import { CliError, jsonOf } from "../client.ts";
import { resolveTool, type CommandContext } from "../context.ts";
import { hooks } from "./hooks.ts";
import { type LogPage, logQuery } from "./lifecycle.ts";

const POLL_MS = 1000;
/** How many records --follow prints before the new ones, unless --limit says. */
const BACKLOG = 10;
/**
 * Records are written shortly after their run (in batches), stamped with the
 * run's time: each poll looks this far back before the newest record it has
 * seen, so one written late is still printed, once.
 */
const OVERLAP_MS = 15_000;
const PAGE = 200;
/** Pages read per poll at most: a burst beyond this many records is not printed whole. */
const MAX_PAGES = 5;

type Row = LogPage["items"][number];

const COLUMNS: [string, number, (r: Row) => unknown][] = [
  ["time", 24, (r) => r.at],
  ["tool", 20, (r) => r.toolName ?? r.target],
  ["mode", 6, (r) => r.mode],
  ["stage", 8, (r) => r.stage],
  ["channel", 7, (r) => r.channel],
  ["outcome", 9, (r) => r.outcome],
  ["code", 18, (r) => r.code],
  ["ms", 5, (r) => r.durationMs],
  ["request", 0, (r) => r.requestId],
];

const cell = (value: unknown) =>
  value === null || value === undefined ? "-" : typeof value === "string" ? value : JSON.stringify(value);

/** One record per line with fixed column widths, so lines printed over time stay aligned. */
const line = (values: string[]) =>
  values
    .map((v, i) => v.padEnd(COLUMNS[i]?.[1] ?? 0))
    .join("  ")
    .trimEnd();

const atMs = (r: Row) => (typeof r.at === "string" ? Date.parse(r.at) : Number.NaN);

/** Notes the records as printed; answers the newest run time seen so far. */
function remember(seen: Map<string, number>, records: Row[], newest: number | null): number | null {
  let latest = newest;
  for (const r of records) {
    const at = atMs(r);
    seen.set(r.id, at);
    if (Number.isFinite(at)) latest = Math.max(latest ?? at, at);
  }
  return latest;
}

/** Connection failures and server errors are worth another poll; anything else ends --follow. */
const transient = (error: unknown) =>
  error instanceof CliError &&
  (error.code === "connection_failed" || (error.status !== undefined && error.status >= 500));

async function follow(ctx: CommandContext): Promise<void> {
  if (ctx.flag("cursor") !== undefined || ctx.flag("until") !== undefined) {
    throw new CliError(
      "--follow prints records as they arrive: it takes neither --cursor nor --until",
      "usage",
    );
  }
  const ws = ctx.workspace();
  const tool = ctx.flag("tool") ? await resolveTool(ctx) : undefined;
  const workspaceApi = ctx.api.v1.workspaces[":ws"];
  const filters = new URLSearchParams(logQuery(ctx));
  const since = filters.get("since");
  const sinceMs = since === null ? Number.NEGATIVE_INFINITY : Date.parse(since);
  filters.delete("limit");

  const print = (records: Row[]) => {
    for (const r of records) {
      process.stdout.write(
        `${ctx.out.json ? JSON.stringify(r) : line(COLUMNS.map(([, , get]) => cell(get(r))))}\n`,
      );
    }
  };

  const stop = new AbortController();
  // A second Ctrl-C while a request hangs ends at once.
  const interrupt = () => (stop.signal.aborted ? process.exit(130) : stop.abort());
  process.on("SIGINT", interrupt);
  // The reader went away (`| head`): stop quietly.
  const closed = () => stop.abort();
  process.stdout.on("error", closed);

  const seen = new Map<string, number>();
  let newest: number | null = null;
  let failing = false;
  const fetchPage = async (params: URLSearchParams): Promise<LogPage> => {
    const query = Object.fromEntries(params);
    const answer =
      tool === undefined
        ? workspaceApi.hooks.logs.$get({ param: { ws }, query })
        : workspaceApi.tools[":tool"].hook.logs.$get({ param: { ws, tool }, query });
    // JSON: NDJSON only when asked for.
    return (await jsonOf(answer)) as LogPage;
  };
  try {
    const first = new URLSearchParams(filters);
    first.set("limit", ctx.flag("limit") ?? String(BACKLOG));
    const backlog = (await fetchPage(first)).items;
    if (!ctx.out.json) process.stdout.write(`${line(COLUMNS.map(([name]) => name.toUpperCase()))}\n`);
    newest = remember(seen, backlog, newest);
    print(backlog.toReversed());

    while (!stop.signal.aborted) {
      await delay(POLL_MS, undefined, { signal: stop.signal }).catch(() => undefined);
      if (stop.signal.aborted) break;
      // Before the first record there is nothing to look back from: every record is new.
      const from = newest === null ? sinceMs : Math.max(sinceMs, newest - OVERLAP_MS);
      const params = new URLSearchParams(filters);
      params.set("limit", String(PAGE));
      if (Number.isFinite(from)) params.set("since", new Date(from).toISOString());
      const fresh: Row[] = [];
      try {
        for (let page = 0; page < MAX_PAGES; page++) {
          const data = await fetchPage(params);
          fresh.push(...data.items.filter((r) => !seen.has(r.id)));
          if (data.nextCursor === null) break;
          params.set("cursor", data.nextCursor);
        }
      } catch (error) {
        if (!transient(error)) throw error;
        // Said once per outage, not on every poll.
        if (!failing) process.stderr.write(`rayrun: ${(error as CliError).message}; retrying\n`);
        failing = true;
        continue;
      }
      failing = false;
      // Ids lead with the run's time: sorted, they print oldest first.
      fresh.sort((a, b) => (a.id < b.id ? -1 : 1));
      newest = remember(seen, fresh, newest);
      print(fresh);
      // What is older than the next poll's window is never returned again.
      const horizon = newest === null ? Number.NEGATIVE_INFINITY : newest - OVERLAP_MS;
      for (const [id, at] of seen) if (at < horizon) seen.delete(id);
    }
  } finally {
    process.off("SIGINT", interrupt);
    process.stdout.off("error", closed);
  }
}

export async function logs(ctx: CommandContext): Promise<void> {
  await (ctx.flags.follow === true ? follow(ctx) : hooks.logs(ctx));
}
