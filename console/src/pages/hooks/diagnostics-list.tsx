// Every problem in the source as a list beside the editor: TypeScript's and the compiler's,
// each a button that moves the cursor to it.
import type { ListedDiagnostic } from "../../editor/code-editor";

export function DiagnosticsList(props: { items: ListedDiagnostic[]; onReveal: (from: number) => void }) {
  const errors = props.items.filter((d) => d.severity === "error").length;
  return (
    <section class="diagnostics" aria-labelledby="diagnostics-heading">
      <h3 id="diagnostics-heading">
        Problems{" "}
        <span class={`badge ${errors > 0 ? "badge-error" : "badge-ok"}`} data-testid="problem-count">
          {props.items.length === 0 ? "none" : props.items.length}
        </span>
      </h3>
      {props.items.length === 0 ? (
        <p class="muted">No type errors or compile errors.</p>
      ) : (
        <ul aria-label="Problems in the source">
          {props.items.map((d, i) => (
            <li key={`${d.from}-${i}`}>
              <button
                type="button"
                class={`diagnostic diagnostic-${d.severity}`}
                onClick={() => props.onReveal(d.from)}
              >
                <span class="diagnostic-where">
                  {d.line}:{d.column}
                </span>
                <span class="diagnostic-message">{d.message}</span>
                <span class="diagnostic-source">{d.source}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
