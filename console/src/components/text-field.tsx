// Labelled form controls with their hint and errors below them. The hint stays outside the <label>, so
// a control's accessible name is the label alone ("Name", not "Name Unique in the workspace…"), and
// both hint and errors describe the control (aria-describedby), errors also marking it invalid.
import type { ComponentChildren, InputHTMLAttributes, Ref } from "preact";
import { useId } from "preact/hooks";
import { FieldError } from "./field-errors";

/** What a control inside <Field> spreads onto itself: its id, and the hint and errors that describe it. */
export interface FieldControl {
  id: string;
  "aria-describedby"?: string;
  "aria-invalid"?: true;
}

interface FieldProps {
  label: ComponentChildren;
  hint?: ComponentChildren;
  messages?: string[];
}

/** Any labelled control (a select, a textarea, an input with a datalist): the control comes from `children`. */
export function Field(props: FieldProps & { children: (control: FieldControl) => ComponentChildren }) {
  const id = useId();
  const messages = props.messages ?? [];
  const described = [props.hint ? `${id}-hint` : "", messages.length > 0 ? `${id}-error` : ""].filter(
    Boolean,
  );
  return (
    <div class="field">
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

/** Omit over each member of a union (the input's attributes are one member per `type`). */
type OmitEach<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** The input's own attributes; what Field sets (id, description, invalid) is not the caller's to set. */
type InputAttributes = OmitEach<
  InputHTMLAttributes,
  "id" | "label" | "ref" | "value" | "onInput" | "aria-describedby" | "aria-invalid"
>;

/**
 * A labelled <input> typed into (text, email, url, number, password, date). `onValue` gets each edit's
 * text; the rest (`onChange` for inputs that apply only when done, `ref` as `inputRef`) goes to the input.
 */
export function TextField(
  props: FieldProps &
    InputAttributes & {
      value: string;
      onValue?: (value: string) => void;
      inputRef?: Ref<HTMLInputElement>;
    },
) {
  const { label, hint, messages, onValue, inputRef, ...input } = props;
  return (
    <Field label={label} hint={hint} messages={messages}>
      {(control) => (
        <input
          {...input}
          {...control}
          ref={inputRef}
          onInput={onValue && ((event) => onValue(event.currentTarget.value))}
        />
      )}
    </Field>
  );
}

export interface Choice<V extends string> {
  value: V;
  label: string;
}

/** A labelled <select>: `onValue` gets the chosen choice's value, typed as the choices are. */
export function SelectField<V extends string>(
  props: FieldProps & {
    name: string;
    value: V;
    choices: readonly Choice<V>[];
    onValue: (value: V) => void;
  },
) {
  const choose = (value: string) => {
    const choice = props.choices.find((c) => c.value === value);
    if (choice) props.onValue(choice.value);
  };
  return (
    <Field label={props.label} hint={props.hint} messages={props.messages}>
      {(control) => (
        <select
          {...control}
          name={props.name}
          value={props.value}
          onChange={(event) => choose(event.currentTarget.value)}
        >
          {props.choices.map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.label}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}
