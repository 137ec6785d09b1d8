// The stage runs of a page, newest first. A shadow run whose result differed from active's is
// highlighted; the time opens the run (?run=<id>), request and revision ids filter by themselves.
import { Fragment } from "preact";
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

const short = (id: string, length: number) => (id.length > length ? `${id.slice(0, length)}…` : id);

/**
 * A revision id by its end: ids lead with their creation time, so revisions made the same day share
 * their first characters and differ in their last (the column says they are revisions).
 */
const revisionEnd = (id: string) => (id.length > 7 ? `…${id.slice(-6)}` : id);

/**
 * A name that may wrap after its dots, underscores and hyphens (`tool.execute.|before`), so a long
 * stage, reason code or hook name makes its row taller instead of the table wider.
 */
function breakable(text: string) {
  return text.split(/(?<=[._-])/).map((part, i) => (
    <Fragment key={i}>
      {i > 0 && <wbr />}
      {part}
    </Fragment>
  ));
}

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
          cellClass: "fit",
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
              <span class="hook-label">{breakable(hookLabel(run))}</span>
              {run.mode === "code" && (
                <span class="badge badge-code" title="Made by Code Mode">
                  code
                </span>
              )}
            </>
          ),
        },
        {
          header: "Stage",
          cellClass: "wrap-cell",
          cell: (run) => <code>{breakable(run.stage)}</code>,
        },
        {
          header: "Channel",
          cellClass: "fit",
          cell: (run) => (
            <span class={run.channel === "shadow" ? "badge badge-shadow" : "badge"}>{run.channel}</span>
          ),
        },
        {
          header: "Outcome",
          cellClass: "fit",
          cell: (run) => <span class={outcomeBadge(run.outcome)}>{run.outcome}</span>,
        },
        {
          header: "Reason",
          cellClass: "wrap-cell",
          cell: (run) => (run.code ? <code>{breakable(run.code)}</code> : none()),
        },
        {
          header: "Duration",
          cellClass: "num fit",
          cell: (run) => formatDuration(run.durationMs),
        },
        {
          header: "Revision",
          cellClass: "mono fit",
          cell: (run) =>
            run.revisionId ? (
              <a
                href={href({
                  revision: run.revisionId,
                  cursor: null,
                  run: null,
                })}
                title={`Filter by revision ${run.revisionId}`}
              >
                {revisionEnd(run.revisionId)}
              </a>
            ) : (
              none()
            ),
        },
        {
          header: "Request ID",
          cellClass: "mono fit",
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
          cellClass: "fit",
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
