// The stage runs of a page, newest first. A shadow run whose result differed from active's is
// highlighted; the time opens the run (?run=<id>), request and revision ids filter by themselves.
import { useLocation } from "preact-iso";
import { formatDuration, formatTime } from "../../components/format";
import type { QueryChanges } from "../../components/query-state";
import { hookLabel, isDifferingShadow, outcomeBadge, type Run } from "./types";
import { TableWrap } from "../../components/table-wrap";

interface Props {
  runs: Run[];
  selected: string | null;
  href: (changes: QueryChanges) => string;
}

const short = (id: string | null, length = 10) =>
  id === null ? "—" : id.length > length ? `${id.slice(0, length)}…` : id;

export function RunsTable({ runs, selected, href }: Props) {
  const { route } = useLocation();
  return (
    <TableWrap label="Stage runs">
      <table class="runs-table data-table" aria-label="Stage runs">
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Hook</th>
            <th scope="col">Stage</th>
            <th scope="col">Channel</th>
            <th scope="col">Outcome</th>
            <th scope="col">Reason</th>
            <th scope="col">Duration</th>
            <th scope="col">Revision</th>
            <th scope="col">Request ID</th>
            <th scope="col">Shadow differed</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => {
            const classes = [
              isDifferingShadow(run) ? "highlight" : "",
              run.id === selected ? "selected" : "",
            ];
            return (
              <tr
                key={run.id}
                class={classes.filter(Boolean).join(" ") || undefined}
                data-run-id={run.id}
                data-clickable=""
                aria-selected={run.id === selected ? true : undefined}
                onClick={(event) => {
                  // Links inside the row keep their own target.
                  if ((event.target as HTMLElement).closest("a")) return;
                  route(href({ run: run.id }));
                }}
              >
                <td>
                  {/* The name starts with the visible time, so speech input can say what it sees. */}
                  <a
                    href={href({ run: run.id })}
                    title={run.at}
                    aria-label={`${formatTime(run.at)}: open run ${run.id}`}
                  >
                    {formatTime(run.at)}
                  </a>
                </td>
                <td class="hook-cell" title={run.target}>
                  <span class="hook-label">{hookLabel(run)}</span>
                  {run.mode === "code" && (
                    <span class="badge badge-code" title="Made by Code Mode">
                      code
                    </span>
                  )}
                </td>
                <td>
                  <code>{run.stage}</code>
                </td>
                <td>
                  <span class={run.channel === "shadow" ? "badge badge-shadow" : "badge"}>{run.channel}</span>
                </td>
                <td>
                  <span class={outcomeBadge(run.outcome)}>{run.outcome}</span>
                </td>
                <td>{run.code ? <code>{run.code}</code> : <span class="muted">—</span>}</td>
                <td class="num">{formatDuration(run.durationMs)}</td>
                <td class="mono">
                  {run.revisionId ? (
                    <a
                      href={href({ revision: run.revisionId, cursor: null, run: null })}
                      title={`Filter by revision ${run.revisionId}`}
                    >
                      {short(run.revisionId)}
                    </a>
                  ) : (
                    <span class="muted">—</span>
                  )}
                </td>
                <td class="mono">
                  <a
                    href={href({ requestId: run.requestId, cursor: null, run: null })}
                    title={`Filter by request ${run.requestId}`}
                  >
                    {short(run.requestId, 8)}
                  </a>
                </td>
                <td>
                  {run.channel !== "shadow" || run.shadowDiffered === null ? (
                    <span class="muted">—</span>
                  ) : run.shadowDiffered ? (
                    <span class="badge badge-warn">differed</span>
                  ) : (
                    <span class="muted">same</span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </TableWrap>
  );
}
