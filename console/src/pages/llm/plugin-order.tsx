// The config's `plugins` list: the names that run first, in this order (move up/down, add, remove),
// then every other deployed plugin alphabetically, as shared/plugins/discovery.ts orders them.
import { useEffect, useId, useState } from "preact/hooks";
import { FieldError } from "../../components/field-errors";
import { unlistedInRunOrder } from "./config-model";
import { fileHref } from "./hook-targets";

export interface PluginFile {
  name: string;
  path: string;
  active: boolean;
}

interface Props {
  ws: string;
  listed: string[];
  onChange: (listed: string[]) => void;
  files: PluginFile[];
  errors: Map<string, string[]>;
  readOnly: boolean;
}

export function PluginOrder(props: Props) {
  const { listed, files, readOnly } = props;
  const id = useId();
  const [choice, setChoice] = useState("");
  // After a move, focus stays on the moved plugin's button so the keyboard can keep moving it.
  const [focus, setFocus] = useState<{ name: string; direction: "up" | "down" } | null>(null);
  useEffect(() => {
    if (!focus) return;
    const row = document.querySelector(`[data-plugin-row="${CSS.escape(focus.name)}"]`);
    const wanted = row?.querySelector<HTMLButtonElement>(`button[data-move="${focus.direction}"]`);
    const other = row?.querySelector<HTMLButtonElement>(
      `button[data-move="${focus.direction === "up" ? "down" : "up"}"]`,
    );
    (wanted && !wanted.disabled ? wanted : other)?.focus();
    setFocus(null);
  }, [focus]);

  const byName = new Map(files.map((file) => [file.name, file]));
  const move = (index: number, by: -1 | 1) => {
    const next = [...listed];
    const [name] = next.splice(index, 1);
    if (name === undefined) return;
    next.splice(index + by, 0, name);
    props.onChange(next);
    setFocus({ name, direction: by < 0 ? "up" : "down" });
  };
  const deployedNames = files.filter((file) => file.active).map((file) => file.name);
  const unlisted = unlistedInRunOrder(deployedNames, listed);
  const undeployed = files.filter((file) => !file.active && !listed.includes(file.name));
  const addable = files
    .map((file) => file.name)
    .filter((name) => !listed.includes(name))
    .toSorted();
  const listErrors = props.errors.get("plugins") ?? [];

  return (
    <section class="card stack" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Plugin order</h2>
      <p class="muted section-hint">
        Plugins listed here run first, in this order. Every other deployed plugin runs after them,
        alphabetically.
      </p>
      <ol class="plugin-list" aria-label="Plugins in configured order">
        {listed.map((name, index) => {
          const file = byName.get(name);
          const rowErrors = props.errors.get(`plugin:${index}`) ?? [];
          return (
            <li key={name} class="plugin-row" data-plugin-row={name}>
              <span class="plugin-index" aria-hidden="true">
                {index + 1}
              </span>
              <span class="plugin-name">
                {file ? <a href={fileHref(props.ws, file.path)}>{name}</a> : <code>{name}</code>}{" "}
                <PluginState file={file} />
              </span>
              {!readOnly && (
                <span class="row nowrap-row plugin-actions">
                  <button
                    type="button"
                    class="btn"
                    data-move="up"
                    aria-label={`Move ${name} up`}
                    disabled={index === 0}
                    onClick={() => move(index, -1)}
                  >
                    ↑
                  </button>
                  <button
                    type="button"
                    class="btn"
                    data-move="down"
                    aria-label={`Move ${name} down`}
                    disabled={index === listed.length - 1}
                    onClick={() => move(index, 1)}
                  >
                    ↓
                  </button>
                  <button
                    type="button"
                    class="btn btn-ghost"
                    aria-label={`Remove ${name} from the order`}
                    onClick={() => props.onChange(listed.filter((n) => n !== name))}
                  >
                    Remove
                  </button>
                </span>
              )}
              <FieldError messages={rowErrors} id={`${id}-plugin-${index}`} />
            </li>
          );
        })}
      </ol>
      {listed.length === 0 && (
        <p class="muted">No plugins listed: every deployed plugin runs alphabetically.</p>
      )}
      <FieldError messages={listErrors} id={`${id}-plugins`} />
      {!readOnly && addable.length > 0 && (
        <div class="row">
          <label class="inline">
            Plugin
            <select
              name="add-plugin"
              value={choice}
              onChange={(event) => setChoice(event.currentTarget.value)}
            >
              <option value="">Choose a plugin…</option>
              {addable.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </label>
          <button
            type="button"
            class="btn"
            disabled={choice === ""}
            onClick={() => {
              props.onChange([...listed, choice]);
              setChoice("");
            }}
          >
            Add to order
          </button>
        </div>
      )}
      <div>
        <h3>Then, automatically (alphabetical)</h3>
        {unlisted.length === 0 ? (
          <p class="muted">No other deployed plugins.</p>
        ) : (
          <ol class="plugin-list auto" aria-label="Plugins in automatic order">
            {unlisted.map((name, index) => {
              const file = byName.get(name);
              return (
                <li key={name} class="plugin-row">
                  <span class="plugin-index" aria-hidden="true">
                    {listed.length + index + 1}
                  </span>
                  <span class="plugin-name">
                    {file ? <a href={fileHref(props.ws, file.path)}>{name}</a> : name}
                  </span>
                </li>
              );
            })}
          </ol>
        )}
        {undeployed.length > 0 && (
          <p class="hint">
            Not deployed, so not run:{" "}
            {undeployed.map((file, i) => (
              <span key={file.name}>
                {i > 0 && ", "}
                <a href={fileHref(props.ws, file.path)}>{file.name}</a>
              </span>
            ))}
            .
          </p>
        )}
      </div>
    </section>
  );
}

function PluginState({ file }: { file: PluginFile | undefined }) {
  if (!file)
    return (
      <span class="badge" title="No plugins/ file has this name: it is skipped">
        no such plugin
      </span>
    );
  if (!file.active)
    return (
      <span class="badge badge-warn" title="Only active deployments run">
        not deployed
      </span>
    );
  return null;
}
