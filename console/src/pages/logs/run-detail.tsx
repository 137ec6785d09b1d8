// One run (?run=<id>): its metadata and, for admins, its captured details. A shadow run that differed
// from active is shown beside the active run of the same request and stage.
import type { ComponentChildren } from "preact";
import { useRoute } from "preact-iso";
import { ProblemView } from "../../components/problem-view";
import { useResource } from "../../components/use-resource";
import { formatDuration, formatFuel, formatTime, shortId } from "../../components/format";
import { activeCounterpart, type ActiveSide, findRun } from "./run-lookup";
import { hookLabel, isDifferingShadow, outcomeBadge, type Run } from "./types";

interface Props {
  id: string;
  /** The run when the current page has it (no request needed). */
  known: Run | undefined;
  closeHref: string;
}

export function RunDetail({ id, known, closeHref }: Props) {
  const ws = useRoute().params.ws ?? "";
  const found = useResource(known ? null : `${ws}|${id}`, (signal) => findRun(ws, id, signal));
  const run = known ?? found.data ?? null;
  const differing = run !== null && isDifferingShadow(run);
  const counterpart = useResource(differing ? `${ws}|${run.id}|active` : null, (signal) =>
    activeCounterpart(ws, run as Run, signal),
  );

  return (
    <section class="card run-detail" aria-labelledby="run-title" id="run-detail">
      <div class="row">
        <h2 id="run-title">
          Run <code>{id}</code>
        </h2>
        <span class="spacer" />
        <a class="btn" href={closeHref}>
          Close
        </a>
      </div>
      <ProblemView problem={found.problem} />
      {!run && found.loading && <p class="muted">Loading the run…</p>}
      {!run && !found.loading && !found.problem && (
        <p class="notice">No run {id} in this workspace (it may have expired).</p>
      )}
      {run && !differing && <RunView run={run} />}
      {run && differing && (
        <>
          <p class="notice notice-warn">
            This shadow run's outcome, arguments or result differed from the active run of the same request.
          </p>
          <div class="grid-2 compare">
            <div>
              <h3>Active</h3>
              <ProblemView problem={counterpart.problem} />
              {counterpart.data?.run ? (
                <RunView run={counterpart.data.run} />
              ) : counterpart.data ? (
                <NoActiveRun shadow={run} side={counterpart.data} />
              ) : counterpart.loading ? (
                <p class="muted">Loading the active run…</p>
              ) : null}
            </div>
            <div>
              <h3>Shadow</h3>
              <RunView run={run} />
            </div>
          </div>
        </>
      )}
    </section>
  );
}

/**
 * No active run at the shadow run's stage: no active hook ran it (a stage is recorded only when a
 * hook defines it), and the shadow run was compared with the call as it passed through.
 */
function NoActiveRun({ shadow, side }: { shadow: Run; side: ActiveSide }) {
  const revision = side.others.find((run) => run.revisionId !== null)?.revisionId ?? null;
  const stage = <code>{shadow.stage}</code>;
  return (
    <p class="notice" data-testid="no-active-run">
      {revision !== null ? (
        <>
          No active hook ran at this stage: the active revision{" "}
          <code title={revision}>{shortId(revision)}</code> defines no {stage} stage, so the call passed
          through unchanged.
        </>
      ) : (
        <>
          No active hook ran for this request: no revision was active then (or the active one has no {stage}{" "}
          stage), so the call passed through unchanged.
        </>
      )}{" "}
      The shadow run is compared with that.
    </p>
  );
}

function RunView({ run }: { run: Run }) {
  const rows: [string, ComponentChildren][] = [
    ["Time", <span title={run.at}>{formatTime(run.at)}</span>],
    ["Hook", hookLabel(run)],
    ["Target", <code>{run.target}</code>],
    ["Stage", <code>{run.stage}</code>],
    ["Channel", run.channel],
    ["Mode", run.mode === "code" ? <span class="badge badge-code">code</span> : "direct"],
    ["Outcome", <span class={outcomeBadge(run.outcome)}>{run.outcome}</span>],
    ["Reason", run.code ? <code>{run.code}</code> : "—"],
    ...requestHookRows(run),
    ["Duration", formatDuration(run.durationMs)],
    ["Fuel", formatFuel(run.fuelUsed)],
    ["Revision", run.revisionId ? <code>{run.revisionId}</code> : "—"],
    ["Request ID", <code>{run.requestId}</code>],
  ];
  return (
    <div class="stack">
      <dl class="run-meta">
        {rows.map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <Details run={run} />
    </div>
  );
}

/** Only request hooks record whether a run was a turn error and which attempt it was. */
function requestHookRows(run: Run): [string, ComponentChildren][] {
  if (run.kind !== "request_hook") return [];
  return [
    [
      "Turn error",
      run.turnError === null ? "—" : run.turnError ? <span class="badge badge-danger">yes</span> : "no",
    ],
    ["Attempt", run.attempt === null ? "—" : String(run.attempt)],
  ];
}

function Details({ run }: { run: Run }) {
  if (!("details" in run)) {
    return (
      <p class="notice details-note">
        Captured details (messages, data, reasons' messages, errors) are shown to workspace admins only.
      </p>
    );
  }
  const details = run.details;
  if (!details) {
    return (
      <p class="notice details-note">
        No details were captured for this run (the service's payload capture is off, or the workspace's detail
        policy is "none").
      </p>
    );
  }
  return (
    <div class="stack run-details">
      {details.reason && <Field label="Reason">{details.reason}</Field>}
      {details.message && <Field label="Message">{details.message}</Field>}
      {details.error && (
        <Field label="Error">
          <pre class="error-text">{details.error}</pre>
        </Field>
      )}
      {details.arguments !== undefined && (
        <Field label="Arguments">
          <pre>{json(details.arguments)}</pre>
        </Field>
      )}
      {details.result !== undefined && (
        <Field label="Result">
          <pre>{json(details.result)}</pre>
        </Field>
      )}
      {details.logs && details.logs.length > 0 && (
        <Field label={`Logs (${details.logs.length})`}>
          <ol class="run-logs">
            {details.logs.map((entry, i) => (
              <li key={i} class={`log-${entry.level}`}>
                <span class="badge">{entry.level}</span> {entry.message}
                {entry.data !== undefined && <pre>{json(entry.data)}</pre>}
              </li>
            ))}
          </ol>
        </Field>
      )}
      {details.truncated && (
        <p class="hint">
          Shortened to fit the stored size
          {details.truncated.omitted.length > 0 && `: ${details.truncated.omitted.join(", ")} cut`}
          {details.truncated.logsDropped > 0 && `, ${details.truncated.logsDropped} log entries dropped`}.
        </p>
      )}
    </div>
  );
}

function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

function Field({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="detail-field">
      <h4>{label}</h4>
      <div>{children}</div>
    </div>
  );
}
