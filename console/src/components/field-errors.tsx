// A problem's errors[] placed at the fields they name. Entries name their field by JSON pointer
// (`path` from body validation, `pointer` or `field` elsewhere); a conflict may name it once at the top
// level (`field`, with the detail as the message).
import type { ComponentChildren } from "preact";
import { useId } from "preact/hooks";
import type { ProblemError } from "../api/problem";

export function entryPointer(entry: Record<string, unknown>): string | null {
  for (const key of ["path", "pointer", "field"]) {
    const value = entry[key];
    if (typeof value === "string") return value.startsWith("/") || value === "" ? value : `/${value}`;
  }
  return null;
}

/** Messages by pointer. */
export function fieldErrors(problem: ProblemError | null): Map<string, string[]> {
  const byPointer = new Map<string, string[]>();
  if (!problem) return byPointer;
  const add = (pointer: string, message: string) =>
    byPointer.set(pointer, [...(byPointer.get(pointer) ?? []), message]);
  for (const entry of problem.errors) {
    const pointer = entryPointer(entry);
    const message = entry.message ?? entry.detail;
    if (pointer !== null && typeof message === "string") add(pointer, message);
  }
  const field = problem.body.field;
  if (typeof field === "string" && problem.errors.length === 0) add(field, problem.detail || problem.title);
  return byPointer;
}

/** The messages for `pointer` (and, with `nested`, for anything under it). */
export function messagesAt(errors: Map<string, string[]>, pointer: string, nested = false): string[] {
  const out: string[] = [];
  for (const [key, messages] of errors) {
    if (key === pointer || (nested && key.startsWith(`${pointer}/`))) out.push(...messages);
  }
  return out;
}

/** Props for an input with an error shown below it: aria-invalid and aria-describedby. */
export function invalidProps(messages: string[], id: string) {
  return messages.length > 0 ? { "aria-invalid": true, "aria-describedby": id } : {};
}

export function FieldError({ messages, id }: { messages: string[]; id: string }) {
  if (messages.length === 0) return null;
  return (
    <span class="field-error" id={id}>
      {messages.join(" ")}
    </span>
  );
}

/** What a control inside <Field> spreads onto itself: its id, and the hint and errors that describe it. */
export interface FieldControl {
  id: string;
  "aria-describedby"?: string;
  "aria-invalid"?: true;
}

/**
 * A labelled control with its hint and errors below it. The hint stays outside the <label>, so the
 * control's accessible name is the label alone ("Name", not "Name Unique in the workspace…").
 */
export function Field(props: {
  label: ComponentChildren;
  hint?: ComponentChildren;
  messages?: string[];
  children: (control: FieldControl) => ComponentChildren;
  class?: string;
}) {
  const id = useId();
  const messages = props.messages ?? [];
  const described = [props.hint ? `${id}-hint` : "", messages.length > 0 ? `${id}-error` : ""].filter(
    Boolean,
  );
  return (
    <div class={`field${props.class ? ` ${props.class}` : ""}`}>
      <label for={id}>{props.label}</label>
      {props.children({
        id,
        ...(described.length > 0 ? { "aria-describedby": described.join(" ") } : {}),
        ...(messages.length > 0 ? { "aria-invalid": true as const } : {}),
      })}
      {props.hint && (
        <span class="hint" id={`${id}-hint`}>
          {props.hint}
        </span>
      )}
      <FieldError messages={messages} id={`${id}-error`} />
    </div>
  );
}
