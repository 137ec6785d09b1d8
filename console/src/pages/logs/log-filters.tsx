// The run filters, each a query-string key named as the API's parameter. Choices apply at once;
// typed values apply on Enter or "Apply". Changing a filter returns to the first page.
import { useEffect, useState } from "preact/hooks";
import { SelectField, TextField } from "../../components/text-field";
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
  { key: "tool", label: "Tool", placeholder: "tool uid" },
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

export function LogFilters({ query, apply, errors }: Props) {
  const [typed, setTyped] = useState<Record<string, string>>({});
  // Back and forward change the query: the typed fields follow it.
  useEffect(() => {
    setTyped(Object.fromEntries(TYPED.map(({ key }) => [key, query[key] ?? ""])));
  }, [TYPED.map(({ key }) => query[key] ?? "").join("\n")]);

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
              onValue={(value) => setTyped((current) => ({ ...current, [key]: value }))}
            />
          ))}
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
