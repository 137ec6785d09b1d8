// The tool's latest runs on real calls, read from the logs: active and shadow stages, newest first, in
// the logs page's own table. Every link goes to the logs page filtered to this tool, where the run,
// request or revision opens in full.
import { useEffect, useState } from "preact/hooks";
import { ProblemError } from "../../api/problem";
import { ProblemView } from "../../components/problem-view";
import { withQuery, type QueryChanges } from "../../components/query-state";
import { runPage } from "../logs/run-lookup";
import { RunsTable } from "../logs/runs-table";
import type { Run } from "../logs/types";
import type { HookStore } from "./store";

/** Enough to see the last few calls' stages; older ones are a click away in the logs. */
const RECENT = 20;

export function RunsPanel({ store }: { store: HookStore }) {
  const target = store.target;
  const [runs, setRuns] = useState<Run[] | null>(null);
  const [problem, setProblem] = useState<ProblemError | null>(null);
  const toolUid = target.kind === "tool" ? target.tool.uid : null;

  useEffect(() => {
    const abort = new AbortController();
    if (toolUid !== null) {
      runPage(target.ws, { tool: toolUid, limit: String(RECENT) }, abort.signal).then(
        (page) => setRuns(page.items),
        (error: unknown) => {
          if (!abort.signal.aborted) setProblem(error instanceof ProblemError ? error : null);
        },
      );
    }
    return () => abort.abort();
  }, [target.ws, toolUid]);

  if (toolUid === null) return null;
  const logs = `/w/${target.ws}/logs`;
  const href = (changes: QueryChanges) => withQuery(logs, { tool: toolUid }, changes);
  return (
    <section class="card stack" aria-labelledby="runs-heading">
      <h2 id="runs-heading">Runs</h2>
      <ProblemView problem={problem} id="runs-problem" />
      {runs === null && problem === null && <p class="muted">Loading runs…</p>}
      {runs !== null && runs.length === 0 && (
        <p class="muted">No runs yet: this tool's hook has not run on a call (or its records expired).</p>
      )}
      {runs !== null && runs.length > 0 && <RunsTable runs={runs} selected={null} href={href} />}
      <p>
        <a href={href({})}>All runs of this tool in the logs</a>
      </p>
    </section>
  );
}
