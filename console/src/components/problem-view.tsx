import type { ProblemEntry, ProblemError } from "../api/problem";

/** The field an entry names: the API's validation errors say `path`; others `pointer` or `field`. */
const fieldOf = (entry: ProblemEntry) => entry.path ?? entry.pointer ?? entry.field;

/** A problem shown where it happened: title, detail and each entry of errors[] (field and message). */
export function ProblemView({ problem, id }: { problem: ProblemError | null | undefined; id?: string }) {
  if (!problem) return null;
  return (
    <div class="problem" role="alert" id={id} data-code={problem.code}>
      <div class="problem-title">
        {problem.title}
        <code class="problem-code">{problem.code}</code>
      </div>
      {problem.detail && <div class="problem-detail">{problem.detail}</div>}
      {problem.errors.length > 0 && (
        <ul class="problem-errors">
          {problem.errors.map((entry, i) => (
            <li key={i}>
              {fieldOf(entry) && <code>{fieldOf(entry)}</code>}{" "}
              {entry.line !== undefined && (
                <span class="muted">
                  line {entry.line}
                  {entry.column !== undefined ? `:${entry.column}` : ""}{" "}
                </span>
              )}
              {entry.detail ?? entry.message ?? JSON.stringify(entry)}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
