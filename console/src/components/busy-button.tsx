import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { ProblemError, networkProblem } from "../api/problem";

interface Props {
  /** The long operation; the button stays disabled (and says so) until it settles. */
  onClick: () => Promise<unknown>;
  /** Where a failure goes; the caller shows it next to what caused it. */
  onProblem?: (problem: ProblemError | null) => void;
  children: ComponentChildren;
  busyLabel?: string;
  kind?: "primary" | "secondary" | "danger";
  disabled?: boolean;
  title?: string;
  type?: "button" | "submit";
  id?: string;
}

/** A button for operations that must not be submitted twice: disabled with a spinner while running. */
export function BusyButton(props: Props) {
  const [busy, setBusy] = useState(false);
  const run = async () => {
    if (busy) return;
    setBusy(true);
    props.onProblem?.(null);
    try {
      await props.onClick();
    } catch (error) {
      props.onProblem?.(error instanceof ProblemError ? error : networkProblem(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <button
      id={props.id}
      type={props.type ?? "button"}
      class={`btn btn-${props.kind ?? "secondary"}`}
      disabled={busy || props.disabled}
      aria-busy={busy}
      title={props.title}
      onClick={(event) => {
        event.preventDefault();
        void run();
      }}
    >
      {busy && <span class="spinner" aria-hidden="true" />}
      {busy ? (props.busyLabel ?? props.children) : props.children}
    </button>
  );
}
