// Where a page shows something it loads: the load's problem first, then a loading line until the first
// answer, an empty line when the answer holds nothing, and the content otherwise.
import type { ComponentChildren } from "preact";
import type { ProblemError } from "../api/problem";
import { ProblemView } from "./problem-view";

/** A load as useResource and the hook store's signals report it. */
export interface LoadState<T> {
  /** Undefined until the first answer; kept while reloading so content doesn't flash. */
  data: T | undefined;
  problem: ProblemError | null | undefined;
  loading: boolean;
}

/**
 * Loading and empty lines stand in for the content (no frame, no header). Tables whose header stays up
 * while loading show those lines inside their frame instead (DataTable's `loadingText` and `empty`).
 */
export function PageState<T>(props: {
  state: LoadState<T>;
  loadingText: string;
  isEmpty: (data: T) => boolean;
  empty: ComponentChildren;
  children: (data: T) => ComponentChildren;
}) {
  const { data, problem, loading } = props.state;
  return (
    <>
      <ProblemView problem={problem} />
      {data === undefined ? (
        loading && (
          <p class="muted" aria-busy="true">
            {props.loadingText}
          </p>
        )
      ) : props.isEmpty(data) ? (
        <p class="empty">{props.empty}</p>
      ) : (
        props.children(data)
      )}
    </>
  );
}

/**
 * A settings page's list: its heading (which also names the table, by `id`), the load's problem, then
 * the table, which shows loading and empty itself.
 */
export function ListSection(props: {
  id: string;
  title: string;
  problem: ProblemError | null;
  children: ComponentChildren;
}) {
  return (
    <section class="stack" aria-labelledby={props.id}>
      <h2 id={props.id}>{props.title}</h2>
      <ProblemView problem={props.problem} />
      {props.children}
    </section>
  );
}

/** A settings page's form, in a card under its heading. */
export function FormCard(props: { id: string; title: string; children: ComponentChildren }) {
  return (
    <section class="card" aria-labelledby={props.id}>
      <h2 id={props.id}>{props.title}</h2>
      {props.children}
    </section>
  );
}
