// The request hook (`pre_llm_hook`): its source, its targets as rows (Main first, then named loops,
// or All streams instead of rows) and its timeout with the cap it runs under.
import { useId } from "preact/hooks";
import { FieldError, invalidProps } from "../../components/field-errors";
import { Field, TextField } from "../../components/text-field";
import type { HookForm } from "./config-model";

export interface LibFile {
  path: string;
  active: boolean;
}

interface Props {
  ws: string;
  form: HookForm;
  onChange: (form: HookForm) => void;
  errors: Map<string, string[]>;
  libFiles: LibFile[];
  /** Default timeout and the cap (limits.execution_timeout_ms, else the default). */
  defaultTimeoutMs: number;
  capMs: number;
  capIsSet: boolean;
  readOnly: boolean;
}

export const fileHref = (ws: string, path: string) => `/w/${ws}/files/${encodeURIComponent(path)}`;

export function HookTargets(props: Props) {
  const { form, errors, readOnly } = props;
  const id = useId();
  const set = (changes: Partial<HookForm>) => props.onChange({ ...form, ...changes });
  const at = (key: string) => errors.get(key) ?? [];
  const sourcePath = form.source.split(":")[0] ?? "";
  const sourceFile = props.libFiles.find((file) => file.path === sourcePath);
  const requested = form.timeout.trim() === "" ? props.defaultTimeoutMs : Number(form.timeout);
  const effective = Number.isFinite(requested) ? Math.min(requested, props.capMs) : props.capMs;

  return (
    <section class="card stack" aria-labelledby={`${id}-title`}>
      <div class="row">
        <h2 id={`${id}-title`}>Request hook</h2>
        <span class="spacer" />
        <label class="inline">
          <input
            type="checkbox"
            checked={form.enabled}
            disabled={readOnly}
            onChange={(event) => set({ enabled: event.currentTarget.checked })}
          />
          Run a request hook
        </label>
      </div>
      <p class="muted section-hint">
        A <code>lib/</code> function that rewrites each conversational LLM request before it is sent. It fails
        closed.
      </p>
      <FieldError messages={at("hook")} id={`${id}-hook`} />
      <fieldset class="hook-fields" disabled={!form.enabled || readOnly}>
        <legend class="sr-only">Request hook settings</legend>
        <Field
          label="Source"
          messages={at("source")}
          hint={
            <>
              A file under lib/, optionally <code>:functionName</code> (default <code>main</code>).{" "}
              {sourceFile ? (
                <>
                  <a href={fileHref(props.ws, sourceFile.path)}>Open {sourceFile.path}</a>
                  {!sourceFile.active && " — not deployed: calls fail until it is."}
                </>
              ) : (
                sourcePath.startsWith("lib/") &&
                "No such file yet: calls fail with request_hook_source_missing until it is deployed."
              )}
            </>
          }
        >
          {(control) => (
            <>
              <input
                {...control}
                name="source"
                list={`${id}-lib`}
                value={form.source}
                placeholder="lib/request-policy.ts:transform"
                spellcheck={false}
                autocomplete="off"
                onInput={(event) => set({ source: event.currentTarget.value })}
              />
              <datalist id={`${id}-lib`}>
                {props.libFiles.map((file) => (
                  <option key={file.path} value={file.path} />
                ))}
              </datalist>
            </>
          )}
        </Field>

        <fieldset class="targets" {...invalidProps(at("targets"), `${id}-targets`)}>
          <legend>Targets</legend>
          <div class="check-row">
            <label class="inline all-streams">
              <input
                type="checkbox"
                name="all-streams"
                checked={form.allStreams}
                onChange={(event) => set({ allStreams: event.currentTarget.checked })}
              />
              All streams
            </label>
            <span class="hint">main and every inner loop, including future ones</span>
          </div>
          <ul class="target-rows" aria-label="Target rows" data-disabled={form.allStreams ? "" : undefined}>
            <li class="target-row">
              <div class="check-row">
                <label class="inline">
                  <input
                    type="checkbox"
                    name="main"
                    checked={form.allStreams || form.main}
                    disabled={form.allStreams}
                    onChange={(event) => set({ main: event.currentTarget.checked })}
                    {...invalidProps(at("main"), `${id}-main`)}
                  />
                  Main
                </label>
                <span class="hint">
                  the main conversation{form.loops.length > 0 ? " (include_main)" : ""}
                </span>
              </div>
              <FieldError messages={at("main")} id={`${id}-main`} />
            </li>
            {form.loops.map((loop, index) => (
              <li class="target-row" key={index}>
                <div class="row nowrap-row">
                  <input
                    aria-label={`Loop name ${index + 1}`}
                    value={loop}
                    disabled={form.allStreams}
                    placeholder="loop name"
                    spellcheck={false}
                    autocomplete="off"
                    maxLength={64}
                    onInput={(event) => {
                      const loops = [...form.loops];
                      loops[index] = event.currentTarget.value;
                      set({ loops });
                    }}
                    {...invalidProps(at(`loop:${index}`), `${id}-loop-${index}`)}
                  />
                  <button
                    type="button"
                    class="btn btn-ghost"
                    disabled={form.allStreams}
                    aria-label={`Remove target ${loop || index + 1}`}
                    onClick={() => set({ loops: form.loops.filter((_, i) => i !== index) })}
                  >
                    Remove
                  </button>
                </div>
                <FieldError messages={at(`loop:${index}`)} id={`${id}-loop-${index}`} />
              </li>
            ))}
          </ul>
          <div class="row">
            <button
              type="button"
              class="btn"
              disabled={form.allStreams}
              onClick={() => set({ loops: [...form.loops, ""] })}
            >
              Add target
            </button>
            <span class="hint">A named inner loop; names need not exist yet.</span>
          </div>
          <FieldError messages={at("targets")} id={`${id}-targets`} />
        </fieldset>

        <TextField
          label="Timeout (ms)"
          messages={at("timeout")}
          hint={
            <span data-testid="timeout-cap">
              Default {props.defaultTimeoutMs} ms. Capped at {props.capMs} ms
              {props.capIsSet
                ? " (limits.execution_timeout_ms)"
                : " (no limits.execution_timeout_ms set: the default caps it)"}
              ; runs with at most {effective} ms.
            </span>
          }
          name="timeout_ms"
          type="number"
          inputMode="numeric"
          min={1}
          step={1}
          value={form.timeout}
          placeholder={String(props.defaultTimeoutMs)}
          onValue={(timeout) => set({ timeout })}
        />
      </fieldset>
    </section>
  );
}
