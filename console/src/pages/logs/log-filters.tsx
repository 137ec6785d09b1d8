// The run filters, each a query-string key named as the API's parameter. Choices apply at once;
// typed values apply on Enter or "Apply". Changing a filter returns to the first page.
import { useEffect, useId, useState } from "preact/hooks";
import { useRoute } from "preact-iso";
import { api, jsonOf, params } from "../../api/client";
import { SelectField, TextField } from "../../components/text-field";
import { useResource } from "../../components/use-resource";
import type { QueryChanges } from "../../components/query-state";
import { CHANNELS, FILTER_KEYS, type FilterKey, KINDS, MODES, OUTCOMES, STAGES } from "./types";

const CHOICES: { key: FilterKey; label: string; options: readonly string[] }[] = [
  { key: "stage", label: "Stage", options: STAGES },
  { key: "channel", label: "Channel", options: CHANNELS },
  { key: "outcome", label: "Outcome", options: OUTCOMES },
  { key: "kind", label: "Hook kind", options: KINDS },
  { key: "mode", label: "Mode", options: MODES },
];

const TYPED: { key: FilterKey; label: string; placeholder: string }[] = [
  { key: "requestId", label: "Request ID", placeholder: "request id" },
  { key: "revision", label: "Revision", placeholder: "revision id" },
  { key: "tool", label: "Tool", placeholder: "tool name" },
  { key: "target", label: "Target", placeholder: "tool:<uid> or file:<path>" },
];

/** ISO time ↔ the local value a datetime-local input shows. */
function toLocalInput(iso: string | undefined): string {
  if (!iso) return "";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 19);
}
function fromLocalInput(value: string): string | null {
  if (!value) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

interface Props {
  query: Record<string, string>;
  apply: (changes: QueryChanges) => void;
  /** Field errors from the API's answer (`/since`, `/stage`, …). */
  errors: Map<string, string[]>;
}

/**
 * The workspace's tools by the name clients call them, offered by the Tool filter (the API takes a
 * name or a uid; a plugin's tools, not indexed, can still be typed by name).
 */
function useToolNames(ws: string): { names: string[]; nameOf: (value: string) => string } {
  const tools = useResource(ws ? `${ws}|tools` : null, (signal) =>
    jsonOf(
      api.v1.workspaces[":ws"].tools.$get(
        { ...params({ ws }), query: { limit: "200" } },
        { init: { signal } },
      ),
    ),
  );
  const items = tools.data?.items ?? [];
  const names = [...new Set(items.map((tool) => tool.name ?? tool.upstreamName))].toSorted();
  const nameOf = (value: string) => {
    const tool = items.find((t) => t.uid === value);
    return tool ? (tool.name ?? tool.upstreamName) : value;
  };
  return { names, nameOf };
}

export function LogFilters({ query, apply, errors }: Props) {
  const ws = useRoute().params.ws ?? "";
  const tools = useToolNames(ws);
  const toolList = useId();
  const [typed, setTyped] = useState<Record<string, string>>({});
  // Back and forward change the query: the typed fields follow it. A tool named by its uid (an older
  // link) is shown by its name, which filters the same.
  const shownTool = tools.nameOf(query.tool ?? "");
  useEffect(() => {
    setTyped({
      ...Object.fromEntries(TYPED.map(({ key }) => [key, query[key] ?? ""])),
      tool: shownTool,
    });
  }, [TYPED.map(({ key }) => query[key] ?? "").join("\n"), shownTool]);

  const change = (changes: QueryChanges) => apply({ ...changes, cursor: null, run: null });
  const active = FILTER_KEYS.filter((key) => query[key]);
  // Open on wide screens; on phones closed unless a filter is set (the table matters more there).
  const [startOpen] = useState(() => active.length > 0 || !window.matchMedia("(max-width: 760px)").matches);
  const messages = (key: string) => errors.get(`/${key}`) ?? [];

  return (
    <details class="card filters-box" open={startOpen}>
      <summary>Filters{active.length > 0 ? ` (${active.length} active)` : ""}</summary>
      <form
        class="log-filters"
        aria-label="Log filters"
        onSubmit={(event) => {
          event.preventDefault();
          change(Object.fromEntries(TYPED.map(({ key }) => [key, (typed[key] ?? "").trim()])));
        }}
      >
        <div class="filter-grid">
          {CHOICES.map(({ key, label, options }) => (
            <SelectField
              key={key}
              label={label}
              messages={messages(key)}
              name={key}
              value={query[key] ?? ""}
              choices={[
                { value: "", label: "Any" },
                ...options.map((option) => ({ value: option, label: option })),
              ]}
              onValue={(value) => change({ [key]: value })}
            />
          ))}
          {(["since", "until"] as const).map((key) => (
            <TextField
              key={key}
              label={key === "since" ? "Since" : "Until"}
              messages={messages(key)}
              type="datetime-local"
              name={key}
              step={1}
              value={toLocalInput(query[key])}
              onChange={(event) => change({ [key]: fromLocalInput(event.currentTarget.value) })}
            />
          ))}
          {TYPED.map(({ key, label, placeholder }) => (
            <TextField
              key={key}
              label={label}
              messages={messages(key)}
              name={key}
              value={typed[key] ?? ""}
              placeholder={placeholder}
              spellcheck={false}
              autocomplete="off"
              list={key === "tool" ? toolList : undefined}
              onValue={(value) => setTyped((current) => ({ ...current, [key]: value }))}
            />
          ))}
          <datalist id={toolList}>
            {tools.names.map((name) => (
              <option key={name} value={name} />
            ))}
          </datalist>
        </div>
        <div class="row">
          <button type="submit" class="btn">
            Apply filters
          </button>
          {active.length > 0 && (
            <button
              type="button"
              class="btn btn-ghost"
              onClick={() => change(Object.fromEntries(FILTER_KEYS.map((key) => [key, null])))}
            >
              Clear filters ({active.length})
            </button>
          )}
        </div>
      </form>
    </details>
  );
}
