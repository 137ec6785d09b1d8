// One test run as the console shows it: outcome, the transformed value, how a file's host call
// mocks were used, logs, time and fuel.
import { pretty } from "./json-example";
import { formatClock, formatFuel } from "../../components/format";
import type { SessionRun } from "./store";
import type { HostCallUsage } from "./test-inputs";

function outcomeText(run: SessionRun): { text: string; kind: "ok" | "error" | "warn" } {
  if (!run.ok) return { text: `Failed: ${run.code ?? "error"}`, kind: "error" };
  if (run.ran === false) return { text: "Stage not defined: value passed through", kind: "warn" };
  const action = run.outcome?.action;
  if (typeof action === "string")
    return { text: `OK: ${action}`, kind: action === "reject" || action === "fail" ? "warn" : "ok" };
  return { text: "OK", kind: "ok" };
}

/** The value the run produced: transformed arguments or result (tools), the return value (files). */
function produced(run: SessionRun): { label: string; value: unknown } | null {
  if (!run.ok) return null;
  const outcome = run.outcome;
  if (outcome) {
    if ("arguments" in outcome) return { label: "Transformed arguments", value: outcome.arguments };
    if ("result" in outcome) return { label: "Transformed result", value: outcome.result };
    return { label: "Outcome", value: outcome };
  }
  return { label: "Return value", value: "value" in run ? run.value : undefined };
}

/** A file run's `hostCalls` answer (tool stages have none). */
function hostCallUsage(run: SessionRun): HostCallUsage | null {
  if (!("hostCalls" in run)) return null;
  const usage: unknown = run.hostCalls;
  if (usage === null || typeof usage !== "object") return null;
  const count = (key: keyof HostCallUsage) => {
    const value: unknown = (usage as Record<string, unknown>)[key];
    return typeof value === "number" ? value : 0;
  };
  return { used: count("used"), unused: count("unused"), unmatched: count("unmatched") };
}

/**
 * "host calls: 1 mock used, 0 unused, 0 unmatched". A refused call (no mock left, or not the one
 * expected) may be caught by the hook and the run still succeed, so it is flagged as a warning.
 */
function HostCalls({ run }: { run: SessionRun }) {
  const usage = hostCallUsage(run);
  if (!usage || usage.used + usage.unused + usage.unmatched === 0) return null;
  const text = `host calls: ${usage.used} mock${usage.used === 1 ? "" : "s"} used, ${usage.unused} unused, ${usage.unmatched} unmatched`;
  if (usage.unmatched === 0) {
    return (
      <p class="host-calls muted" data-testid="host-calls">
        {text}
      </p>
    );
  }
  return (
    <p class="host-calls notice notice-warn" data-testid="host-calls">
      <strong>Warning:</strong> {text}. An unmatched call was refused: no mock was left for it, or it did not
      match its mock.
    </p>
  );
}

export function RunResult({ run }: { run: SessionRun }) {
  const outcome = outcomeText(run);
  const value = produced(run);
  return (
    <div class="run-result stack" data-testid="test-result">
      <div class="row">
        <span class={`badge badge-${outcome.kind}`} data-testid="test-outcome">
          {outcome.text}
        </span>
        <span class="muted">
          {run.label} · version {run.version} · {run.durationMs.toFixed(1)} ms · {formatFuel(run.fuelUsed)} ·{" "}
          {formatClock(run.at)}
        </span>
      </div>
      {!run.ok && (
        <div class="problem" role="alert">
          <div class="problem-title">
            {run.message ?? "The run failed"} <code class="problem-code">{run.code}</code>
          </div>
          {Array.isArray(run.errors) && run.errors.length > 0 && <pre>{pretty(run.errors)}</pre>}
        </div>
      )}
      {run.ok && run.outcome && "reason" in run.outcome && (
        <p>
          Reason: <code>{run.outcome.reason}</code> {"message" in run.outcome ? run.outcome.message : ""}
        </p>
      )}
      <HostCalls run={run} />
      {value && (
        <div>
          <h4>{value.label}</h4>
          <pre>{value.value === undefined ? "undefined (no change)" : pretty(value.value)}</pre>
        </div>
      )}
      <div>
        <h4>Logs ({run.logs.length})</h4>
        {run.logs.length === 0 ? (
          <p class="muted">No log entries.</p>
        ) : (
          <ul class="run-logs">
            {run.logs.map((entry, i) => (
              <li key={i}>
                <span class={`badge log-${entry.level}`}>{entry.level}</span> {entry.message}
                {entry.data !== undefined && <code class="log-data">{JSON.stringify(entry.data)}</code>}
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}
