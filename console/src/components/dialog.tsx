// Modal dialogs on the native <dialog>: showModal() traps focus, Escape closes, focus returns to
// the opener. A dialog is open while it is rendered; closing tells the owner through onClose.
import type { ComponentChildren } from "preact";
import { useEffect, useId, useRef, useState } from "preact/hooks";
import type { ProblemError } from "../api/problem";
import { BusyButton } from "./busy-button";
import { ProblemView } from "./problem-view";

export function Dialog(props: {
  title: string;
  onClose: () => void;
  children: ComponentChildren;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      class={props.wide ? "dialog-wide" : undefined}
      aria-labelledby={titleId}
      onClose={props.onClose}
    >
      <div class="stack">
        <h2 id={titleId}>{props.title}</h2>
        {props.children}
      </div>
    </dialog>
  );
}

/** Asks before something that cannot be undone; the action runs in the dialog, its problem shown there. */
export function ConfirmDialog(props: {
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  busyLabel?: string;
  /** `danger` (the default) for what removes or stops something; `primary` for what lets it go ahead. */
  confirmKind?: "primary" | "danger";
  onConfirm: () => Promise<unknown>;
  onClose: () => void;
}) {
  const [problem, setProblem] = useState<ProblemError | null>(null);
  return (
    <Dialog title={props.title} onClose={props.onClose}>
      <div>{props.children}</div>
      <ProblemView problem={problem} />
      <div class="row dialog-actions">
        <button type="button" class="btn" onClick={props.onClose}>
          Cancel
        </button>
        <BusyButton
          kind={props.confirmKind ?? "danger"}
          onClick={props.onConfirm}
          onProblem={setProblem}
          busyLabel={props.busyLabel}
        >
          {props.confirmLabel}
        </BusyButton>
      </div>
    </Dialog>
  );
}

/** Copies `text`; resolves false when the clipboard is unavailable (the field stays selectable). */
async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/** A secret the server shows once (an API key, a sign-in link): a Copy button and a warning. */
export function ShownOnceDialog(props: {
  title: string;
  label: string;
  value: string;
  warning: ComponentChildren;
  children?: ComponentChildren;
  onClose: () => void;
}) {
  const [copied, setCopied] = useState<"yes" | "failed" | null>(null);
  const inputId = useId();
  const input = useRef<HTMLInputElement>(null);
  const copy = async () => {
    const ok = await copyText(props.value);
    setCopied(ok ? "yes" : "failed");
    if (!ok) input.current?.select();
  };
  return (
    <Dialog title={props.title} onClose={props.onClose} wide>
      {props.children}
      <div class="notice notice-warn" role="note">
        {props.warning}
      </div>
      <label for={inputId}>{props.label}</label>
      <div class="row copy-row">
        <input
          id={inputId}
          ref={input}
          class="mono copy-value"
          readOnly
          value={props.value}
          onFocus={(event) => event.currentTarget.select()}
        />
        <button type="button" class="btn btn-primary" onClick={() => void copy()}>
          Copy
        </button>
      </div>
      <span class="hint" role="status">
        {copied === "yes" && "Copied to the clipboard."}
        {copied === "failed" && "The clipboard is not available here: the text is selected, copy it by hand."}
      </span>
      <div class="row dialog-actions">
        <button type="button" class="btn" onClick={props.onClose}>
          Done
        </button>
      </div>
    </Dialog>
  );
}
