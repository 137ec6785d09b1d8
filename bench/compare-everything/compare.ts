// Comparing the two sides row by row, and the report: a markdown table, then
// every difference in full.
import type { CallRecord, ErrorRecord, Observed, OpRecord } from "./side";
import { VOLATILE, type SideValues } from "./volatile";

export const COLUMNS = [
  ["content", "content"],
  ["structuredContent", "structuredContent"],
  ["log", "notifications(log)"],
  ["progress", "progress"],
  ["metadata", "metadata"],
  ["clientRequests", "client requests (sampling/elicitation/roots)"],
] as const;

type Column = (typeof COLUMNS)[number][0];

export interface Difference {
  column: Column;
  path: string;
  direct: unknown;
  gateway: unknown;
}

export interface Row {
  label: string;
  cells: Record<Column, string>;
  verdict: string;
  differences: Difference[];
  ignored: string | null;
}

export type Compared =
  | { kind: "call"; label: string; direct: CallRecord; gateway: CallRecord }
  | { kind: "op"; label: string; direct: OpRecord; gateway: OpRecord }
  | { kind: "observed"; label: string; direct: Observed; gateway: Observed }
  | { kind: "names"; label: string; direct: string[]; gateway: string[] };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The listing fields compared (the brief's six, plus the description and input schema the gateway also passes). */
const LISTING_FIELDS = [
  "title",
  "description",
  "inputSchema",
  "outputSchema",
  "annotations",
  "execution",
  "icons",
  "_meta",
] as const;

function valuesOf(item: Compared, side: "direct" | "gateway"): SideValues {
  switch (item.kind) {
    case "call": {
      const r = item[side];
      const listing = r.listing as Record<string, unknown> | null;
      return {
        content: {
          content: r.content,
          isError: r.isError,
          _meta: r.meta,
          error: r.error,
          taskStream: r.taskStream,
        },
        structuredContent: r.structuredContent,
        log: { logs: r.logs, notifications: r.notifications },
        progress: r.progress,
        metadata:
          listing === null
            ? { listed: false }
            : { listed: true, ...Object.fromEntries(LISTING_FIELDS.map((field) => [field, listing[field]])) },
        clientRequests: r.clientRequests,
      };
    }
    case "op": {
      const r = item[side];
      return {
        content: { result: r.result, error: r.error },
        log: { logs: r.logs, notifications: r.notifications },
        clientRequests: r.clientRequests,
      };
    }
    case "observed": {
      const r = item[side];
      return { log: { logs: r.logs, notifications: r.notifications }, clientRequests: r.clientRequests };
    }
    case "names":
      break;
  }
  return { content: item[side] };
}

/**
 * A deep copy without the `_meta` keys that start with `rayrun/` (the
 * gateway's own: request id, refusal details); a `_meta` left empty by that
 * is dropped, as if the upstream had sent none.
 */
function withoutGatewayMeta(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutGatewayMeta);
  if (!isRecord(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    if (key === "_meta" && isRecord(member)) {
      const kept = Object.entries(member).filter(([name]) => !name.startsWith("rayrun/"));
      if (kept.length === 0 && Object.keys(member).length > 0) continue;
      copy[key] = withoutGatewayMeta(Object.fromEntries(kept));
    } else copy[key] = withoutGatewayMeta(member);
  }
  return copy;
}

const pathKey = (key: string): string =>
  /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;

function diff(
  a: unknown,
  b: unknown,
  path: string,
  out: { path: string; direct: unknown; gateway: unknown }[],
) {
  if (Object.is(a, b)) return;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) diff(a[i], b[i], `${path}[${i}]`, out);
    return;
  }
  if (isRecord(a) && isRecord(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].toSorted();
    for (const key of keys) diff(a[key], b[key], `${path}${pathKey(key)}`, out);
    return;
  }
  out.push({ path, direct: a, gateway: b });
}

/** Whether a column holds nothing on a side: absent, empty lists, or objects of those. */
function blank(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (isRecord(value)) return Object.values(value).every(blank);
  return false;
}

const shortened = (text: string): string => (text.length > 90 ? `${text.slice(0, 87)}…` : text);

/** An error in a few words: its code and message, without the SDK's "MCP error <code>: " prefixes. */
const errorText = (error: ErrorRecord): string =>
  `error ${error.code ?? "(no code)"}: ${shortened(error.message.replaceAll(/MCP error -?\d+: /g, ""))}`;

const methods = (observed: { clientRequests: { method: string }[] }): string =>
  observed.clientRequests.map((request) => request.method).join(", ") || "none";

const only = (mine: string[], theirs: string[]): string[] => mine.filter((name) => !theirs.includes(name));

/** Notification methods in arrival order, a run of one method counted: `a ×3, b`. */
function other(observed: Observed): string {
  const runs: { method: string; count: number }[] = [];
  for (const { method } of observed.notifications) {
    const last = runs.at(-1);
    if (last?.method === method) last.count++;
    else runs.push({ method, count: 1 });
  }
  return runs.map(({ method, count }) => (count > 1 ? `${method} ×${count}` : method)).join(", ") || "none";
}

/** A short description of what differs, for the table's last column. */
function verdictOf(item: Compared, differences: Difference[]): string {
  if (differences.length === 0) return "same";
  const changed = new Set(differences.map((d) => d.column));
  const parts: string[] = [];
  if (item.kind === "names") {
    const missing = only(item.direct, item.gateway);
    const extra = only(item.gateway, item.direct);
    if (missing.length > 0) parts.push(`gateway lacks ${missing.join(", ")}`);
    if (extra.length > 0) parts.push(`gateway adds ${extra.join(", ")}`);
    return parts.join("; ") || "order differs";
  }
  if (item.kind === "op" && item.direct.error === undefined && item.gateway.error?.code === -32601) {
    return "not offered by the gateway";
  }
  if (item.kind === "call") {
    const { direct, gateway } = item;
    if (direct.listing !== null && gateway.listing === null) parts.push("not listed by the gateway");
    else if (direct.listing === null && gateway.listing !== null) parts.push("listed only by the gateway");
    else if (changed.has("metadata")) {
      const fields = new Set(
        differences.filter((d) => d.column === "metadata").map((d) => d.path.split(/[.[]/)[1]),
      );
      parts.push(`listing differs: ${[...fields].join(", ")}`);
    }
  }
  if (changed.has("content") && item.kind !== "observed") {
    const { direct, gateway } = item;
    if (gateway.error !== undefined && direct.error === undefined)
      parts.push(`gateway ${errorText(gateway.error)}`);
    else if (direct.error !== undefined && gateway.error === undefined)
      parts.push(`direct ${errorText(direct.error)}`);
    else if (direct.error !== undefined && gateway.error !== undefined) parts.push("errors differ");
    else if (item.kind === "call" && Boolean(item.direct.isError) !== Boolean(item.gateway.isError)) {
      const failed = item.gateway.isError ? item.gateway : item.direct;
      const first = (failed.content as { text?: unknown }[] | undefined)?.[0]?.text;
      parts.push(`${failed === item.gateway ? "gateway" : "direct"} isError: ${shortened(String(first))}`);
    } else {
      const paths = differences.filter((d) => d.column === "content").map((d) => d.path);
      parts.push(
        `content differs at ${paths[0] ?? "?"}${paths.length > 1 ? ` (+${paths.length - 1} more)` : ""}`,
      );
    }
  }
  if (changed.has("structuredContent")) parts.push("structuredContent differs");
  if (changed.has("log")) {
    const { direct, gateway } = item;
    if (direct.logs.length !== gateway.logs.length)
      parts.push(`log notifications ${direct.logs.length} vs ${gateway.logs.length}`);
    if (other(direct) !== other(gateway))
      parts.push(`other notifications: ${other(direct)} vs ${other(gateway)}`);
    if (direct.logs.length === gateway.logs.length && other(direct) === other(gateway))
      parts.push("log notifications differ");
  }
  if (changed.has("progress") && item.kind === "call") {
    const { direct, gateway } = item;
    parts.push(
      direct.progress.length === gateway.progress.length
        ? "progress values differ"
        : `progress ${direct.progress.length} vs ${gateway.progress.length}`,
    );
  }
  if (changed.has("clientRequests")) {
    parts.push(`client requests: ${methods(item.direct)} vs ${methods(item.gateway)}`);
  }
  return parts.join("; ");
}

export function compare(item: Compared): Row {
  const direct = withoutGatewayMeta(valuesOf(item, "direct")) as SideValues;
  const gateway = withoutGatewayMeta(valuesOf(item, "gateway")) as SideValues;
  const rule = VOLATILE[item.label];
  rule?.apply(direct);
  rule?.apply(gateway);
  const differences: Difference[] = [];
  const cells = {} as Record<Column, string>;
  for (const [column] of COLUMNS) {
    const found: { path: string; direct: unknown; gateway: unknown }[] = [];
    diff(direct[column], gateway[column], column, found);
    differences.push(...found.map((d) => ({ column, ...d })));
    cells[column] = found.length > 0 ? "≠" : blank(direct[column]) ? "–" : "=";
  }
  if (item.kind === "names" && differences.length > 0) {
    // A list of names differs by what is missing on either side, not index by index.
    differences.splice(0, differences.length, {
      column: "content",
      path: "content (names listed by one side only)",
      direct: only(item.direct, item.gateway),
      gateway: only(item.gateway, item.direct),
    });
  }
  if (item.kind === "call" && (item.direct.listing === null) !== (item.gateway.listing === null)) {
    // Every field of a listing one side lacks differs; its absence says it.
    const kept = differences.filter((d) => d.column !== "metadata" || d.path === "metadata.listed");
    differences.splice(0, differences.length, ...kept);
  }
  const verdict = verdictOf(item, differences);
  return { label: item.label, cells, verdict, differences, ignored: rule?.ignores ?? null };
}

const escapeCell = (text: string): string => text.replaceAll("|", "\\|").replaceAll("\n", " ");

const MAX_SHOWN = 400;
function shown(value: unknown): string {
  if (value === undefined) return "(absent)";
  const text = JSON.stringify(value);
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}… (${text.length} chars)` : text;
}

export function render(rows: readonly Row[]): string {
  const lines: string[] = [];
  lines.push(`| row | ${COLUMNS.map(([, title]) => title).join(" | ")} | verdict |`);
  lines.push(`|${" --- |".repeat(COLUMNS.length + 2)}`);
  for (const row of rows) {
    const cells = COLUMNS.map(([column]) => row.cells[column]);
    lines.push(`| ${escapeCell(row.label)} | ${cells.join(" | ")} | ${escapeCell(row.verdict)} |`);
  }
  lines.push("");
  lines.push("`=` same on both sides, `≠` differs, `–` nothing on either side.");
  const differing = rows.filter((row) => row.differences.length > 0);
  if (differing.length > 0) {
    lines.push("", "## Differences", "");
    for (const row of differing) {
      lines.push(`### ${row.label}`, "", row.verdict, "");
      for (const d of row.differences) {
        lines.push(`- \`${d.path}\``, `  - direct:  ${shown(d.direct)}`, `  - gateway: ${shown(d.gateway)}`);
      }
      lines.push("");
    }
  }
  lines.push("## Ignored values", "");
  lines.push(
    "- every row: `_meta` keys starting with `rayrun/` (a `_meta` left empty by that counts as absent)",
  );
  for (const row of rows) if (row.ignored !== null) lines.push(`- ${row.label}: ${row.ignored}`);
  return lines.join("\n");
}
