// A problem's errors[] placed at the fields they name. Entries name their field by JSON pointer
// (`path` from body validation, `pointer` or `field` elsewhere); a conflict may name it once at the top
// level (`field`, with the detail as the message). The labelled controls that show them are in
// text-field.tsx.
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
