// The stage runs of a page, newest first. A shadow run whose result differed from active's is
// highlighted; the time opens the run (?run=<id>), request and revision ids filter by themselves.
import { useLocation } from "preact-iso";
import { formatDuration, formatTime } from "../../components/format";
import type { QueryChanges } from "../../components/query-state";
import { hookLabel, isDifferingShadow, outcomeBadge, type Run } from "./types";
import { DataTable } from "../../components/data-table";

interface Props {
  runs: Run[];
  selected: string | null;
  href: (changes: QueryChanges) => string;
}

const short = (id: string | null, length = 10) =>
  id === null ? "—" : id.length > length ? `${id.slice(0, length)}…` : id;

/** An empty cell's dash (a fresh element each time: Preact elements are not shared between places). */
const none = () => <span class="muted">—</span>;

export function RunsTable({ runs, selected, href }: Props) {
  const { route } = useLocation();
  return (
    <DataTable
      class="runs-table data-table"
      label="Stage runs"
      ariaLabel="Stage runs"
      rows={runs}
      rowKey={(run) => run.id}
      rowAttributes={(run) => ({
        class:
          [isDifferingShadow(run) ? "highlight" : "", run.id === selected ? "selected" : ""]
            .filter(Boolean)
            .join(" ") || undefined,
        "data-run-id": run.id,
        "aria-selected": run.id === selected ? true : undefined,
      })}
      onRowClick={(run) => route(href({ run: run.id }))}
      columns={[
        {
          header: "Time",
          cell: (run) => (
            // The name starts with the visible time, so speech input can say what it sees.
            <a
              href={href({ run: run.id })}
              title={run.at}
              aria-label={`${formatTime(run.at)}: open run ${run.id}`}
            >
              {formatTime(run.at)}
            </a>
          ),
        },
        {
          header: "Hook",
          cellClass: "hook-cell",
          title: (run) => run.target,
          cell: (run) => (
            <>
              <span class="hook-label">{hookLabel(run)}</span>
              {run.mode === "code" && (
                <span class="badge badge-code" title="Made by Code Mode">
                  code
                </span>
              )}
            </>
          ),
        },
        { header: "Stage", cell: (run) => <code>{run.stage}</code> },
        {
          header: "Channel",
          cell: (run) => (
            <span class={run.channel === "shadow" ? "badge badge-shadow" : "badge"}>{run.channel}</span>
          ),
        },
        { header: "Outcome", cell: (run) => <span class={outcomeBadge(run.outcome)}>{run.outcome}</span> },
        { header: "Reason", cell: (run) => (run.code ? <code>{run.code}</code> : none()) },
        { header: "Duration", cellClass: "num", cell: (run) => formatDuration(run.durationMs) },
        {
          header: "Revision",
          cellClass: "mono",
          cell: (run) =>
            run.revisionId ? (
              <a
                href={href({ revision: run.revisionId, cursor: null, run: null })}
                title={`Filter by revision ${run.revisionId}`}
              >
                {short(run.revisionId)}
              </a>
            ) : (
              none()
            ),
        },
        {
          header: "Request ID",
          cellClass: "mono",
          cell: (run) => (
            <a
              href={href({ requestId: run.requestId, cursor: null, run: null })}
              title={`Filter by request ${run.requestId}`}
            >
              {short(run.requestId, 8)}
            </a>
          ),
        },
        {
          header: "Shadow differed",
          cell: (run) =>
            run.channel !== "shadow" || run.shadowDiffered === null ? (
              none()
            ) : run.shadowDiffered ? (
              <span class="badge badge-warn">differed</span>
            ) : (
              <span class="muted">same</span>
            ),
        },
      ]}
    />
  );
}
