// The test console: a tool's before/after stage with arguments and a mock result, or a file's
// function with one input and mocks for its host calls, run against a saved version (the draft's
// by default). Runs of this page session stay listed; a successful run makes its version deployable.
import { useLocation } from "preact-iso";
import { useEffect, useRef, useState } from "preact/hooks";
import { jsonOf } from "../../api/client";
import type { ProblemError } from "../../api/problem";
import { can } from "../../api/session";
import { BusyButton } from "../../components/busy-button";
import { Field } from "../../components/text-field";
import { useResource } from "../../components/use-resource";
import { ProblemView } from "../../components/problem-view";
import { noteCompileProblem } from "./compile";
import { compiledExports, exportsInSource } from "./exports";
import { formatClock } from "../../components/format";
import { RunResult } from "./run-result";
import { asProblem, type HookStore } from "./store";
import {
  fileInputFor,
  HOST_CALLS_EXAMPLE,
  hostCallMessages,
  initialInputs,
  PLUGIN_HOOKS,
  runTest,
  shownInline,
  type TestInputs,
} from "./test-inputs";
import { withQuery } from "./url";

export function VersionSelect(props: {
  store: HookStore;
  value: number | null;
  onChange: (v: number | null) => void;
  label: string;
  id: string;
  includeDraft?: boolean;
}) {
  const draft = props.store.draft.value;
  const versions = props.store.versions.value ?? [];
  return (
    <label for={props.id}>
      {props.label}
      <select
        id={props.id}
        value={props.value === null ? "" : String(props.value)}
        onChange={(e) => props.onChange(e.currentTarget.value === "" ? null : Number(e.currentTarget.value))}
      >
        {props.includeDraft !== false && (
          <option value="">Saved draft (version {draft?.version ?? 0})</option>
        )}
        {versions.map((v) => (
          <option key={v.version} value={String(v.version)}>
            Version {v.version}
            {v.note ? ` — ${v.note.slice(0, 40)}` : ""}
          </option>
        ))}
      </select>
    </label>
  );
}

/**
 * A file version's functions or hooks, as far as they are known (null before anything is), for the
 * version the test runs (`null`: the saved draft).
 */
export function useFileExports(store: HookStore, version: number | null): string[] | null {
  const target = store.target;
  const draft = store.draft.value;
  const number = version ?? draft?.version ?? 0;
  const compiled = number > 0 ? compiledExports(store, number) : null;
  const fetchSource = target.kind === "file" && compiled === null && number > 0 && number !== draft?.version;
  const older = useResource(fetchSource ? `${target.base}|${number}` : null, (signal) =>
    jsonOf(store.lifecycle.versions[":n"].$get({ param: { n: String(number) } }, { init: { signal } })),
  );
  if (target.kind !== "file" || number === 0) return null;
  if (compiled !== null) return compiled;
  const source = number === draft?.version ? draft.source : older.data?.source;
  return source === undefined ? null : exportsInSource(source, target.fileKind);
}

/**
 * Keeps the file test's function one the version has: the first of them when the chosen one is not
 * (a plugin's input becomes that hook's example).
 */
export function useFunctionOf(store: HookStore, exports: string[] | null) {
  useEffect(() => {
    const target = store.target;
    const inputs = store.inputs.value;
    const first = exports?.[0];
    if (target.kind !== "file" || !exports || first === undefined) return;
    // An empty lib function runs `main`.
    if (exports.includes(inputs.fn || (target.fileKind === "lib" ? "main" : ""))) return;
    store.inputs.value = {
      ...inputs,
      fn: first,
      input: target.fileKind === "plugin" ? fileInputFor(first, "plugin") : inputs.input,
    };
  }, [store, exports?.join("\n")]);
}

/** The list of functions a refusal names (`available`), for a run that named one the version lacks. */
function availableIn(problem: ProblemError): string[] | null {
  const available: unknown = problem.body.available;
  return Array.isArray(available) && available.every((name) => typeof name === "string") ? available : null;
}

/** Runs a test with the store's inputs and keeps it in the session's list. */
export async function runAndRecord(store: HookStore, version: number | undefined) {
  try {
    const run = await runTest(store.target, store.inputs.value, version);
    store.runs.value = [run, ...store.runs.value];
    return run;
  } catch (error) {
    const problem = asProblem(error);
    noteCompileProblem(store, problem, version);
    const available = availableIn(problem);
    const ran = version ?? store.draft.value?.version;
    if (available !== null && ran !== undefined) store.learnExports(ran, available);
    throw problem;
  } finally {
    void store.refreshQuotas();
  }
}

function ToolInputs({ store, stage }: { store: HookStore; stage: "before" | "after" }) {
  const inputs = store.inputs.value;
  const set = (patch: Partial<TestInputs>) => {
    store.inputs.value = { ...store.inputs.value, ...patch };
  };
  return (
    <>
      <label>
        {stage === "before" ? "Arguments (JSON)" : "Call arguments (JSON)"}
        <textarea
          rows={8}
          spellcheck={false}
          value={inputs.arguments}
          onInput={(e) => set({ arguments: e.currentTarget.value })}
        />
        <span class="hint">
          {stage === "before"
            ? "The public arguments a client sends; the before stage turns them into upstream arguments."
            : "The arguments of the call the result belongs to."}
        </span>
      </label>
      {stage === "after" && (
        <label>
          Mock result (JSON)
          <textarea
            rows={10}
            spellcheck={false}
            value={inputs.result}
            onInput={(e) => set({ result: e.currentTarget.value })}
          />
          <span class="hint">What the upstream returns; it is never contacted in a test.</span>
        </label>
      )}
    </>
  );
}

/** Files: the answers the hook's rayrun.lambda and rayrun.model calls get, in call order. */
function HostCallMocks({ store, messages }: { store: HookStore; messages: string[] }) {
  const field = useRef<HTMLTextAreaElement>(null);
  // The error is shown only here (not in an alert): focus brings it, through the description, to a
  // screen reader.
  useEffect(() => {
    if (messages.length > 0) field.current?.focus();
  }, [messages.join("\n")]);
  return (
    <Field
      label="Host call mocks (JSON)"
      messages={messages}
      hint={
        <>
          Answers for the hook's <code>rayrun.lambda</code> and <code>rayrun.model</code> calls, taken in
          order; nothing real is called. <code>[]</code> sends none. For example{" "}
          <code>{HOST_CALLS_EXAMPLE}</code>
        </>
      }
    >
      {(control) => (
        <textarea
          {...control}
          ref={field}
          name="hostCalls"
          rows={6}
          spellcheck={false}
          value={store.inputs.value.hostCalls}
          onInput={(e) => {
            store.inputs.value = { ...store.inputs.value, hostCalls: e.currentTarget.value };
          }}
        />
      )}
    </Field>
  );
}

function FileInputs({
  store,
  problem,
  exports,
}: {
  store: HookStore;
  problem: ProblemError | null;
  exports: string[] | null;
}) {
  const target = store.target;
  const inputs = store.inputs.value;
  const kind = target.kind === "file" ? target.fileKind : "lib";
  const set = (patch: Partial<TestInputs>) => {
    store.inputs.value = { ...store.inputs.value, ...patch };
  };
  return (
    <>
      {kind === "lib" ? (
        <label>
          Exported function
          <input
            type="text"
            value={inputs.fn}
            spellcheck={false}
            onInput={(e) => set({ fn: e.currentTarget.value })}
          />
          <span class="hint">
            Empty runs main.{exports ? ` This version exports ${exports.join(", ")}.` : ""}
          </span>
        </label>
      ) : (
        <label>
          Plugin hook
          <select
            value={inputs.fn}
            onChange={(e) => {
              const fn = e.currentTarget.value;
              set({ fn, input: fileInputFor(fn, "plugin") });
            }}
          >
            {(exports ?? PLUGIN_HOOKS).map((h) => (
              <option key={h} value={h}>
                {h}
              </option>
            ))}
          </select>
        </label>
      )}
      <label>
        Input (JSON)
        <textarea
          rows={12}
          spellcheck={false}
          value={inputs.input}
          onInput={(e) => set({ input: e.currentTarget.value })}
        />
        <span class="hint">The function's single argument.</span>
      </label>
      <HostCallMocks store={store} messages={hostCallMessages(problem)} />
    </>
  );
}

export function TestPanel({ store }: { store: HookStore }) {
  const { url, route, query } = useLocation();
  const [problem, setProblem] = useState<ProblemError | null>(null);
  // The version lives in the URL (?version=4), so a link can open the test of a given version.
  const version = /^[1-9][0-9]*$/.test(query.version ?? "") ? Number(query.version) : null;
  const setVersion = (v: number | null) =>
    route(withQuery(url, { version: v === null ? null : String(v) }), true);
  const target = store.target;
  const stage = query.stage === "after" ? "after" : "before";
  const editor = can("editor");
  const runs = store.runs.value;
  const latest = runs[0];
  const exports = useFileExports(store, version);
  useFunctionOf(store, exports);

  // The stage lives in the URL (?stage=after) and in the inputs the run sends.
  useEffect(() => {
    if (target.kind === "tool" && store.inputs.value.stage !== stage) {
      store.inputs.value = { ...store.inputs.value, stage };
    }
  }, [stage]);

  return (
    <div class="test-layout">
      <section class="card stack" aria-labelledby="test-heading">
        <h2 id="test-heading">Test console</h2>
        {store.dirty.value && (
          <p class="notice notice-warn" role="status">
            Tests run saved versions: your unsaved changes are not included. Save them in the editor first.
          </p>
        )}
        {target.kind === "tool" && (
          <fieldset class="segmented">
            <legend>Stage</legend>
            {(["before", "after"] as const).map((s) => (
              <label key={s} class="inline">
                <input
                  type="radio"
                  name="stage"
                  value={s}
                  checked={stage === s}
                  onChange={() => route(withQuery(url, { stage: s === "before" ? null : s }), true)}
                />
                {s === "before" ? "Before" : "After"}
              </label>
            ))}
          </fieldset>
        )}
        <VersionSelect
          store={store}
          value={version}
          onChange={setVersion}
          label="Version to test"
          id="test-version"
        />
        {target.kind === "tool" ? (
          <ToolInputs store={store} stage={stage} />
        ) : (
          <FileInputs store={store} problem={problem} exports={exports} />
        )}
        <div class="row">
          {editor && (
            <BusyButton
              kind="primary"
              busyLabel="Running…"
              onProblem={setProblem}
              onClick={() => runAndRecord(store, version ?? undefined)}
              disabled={!store.draft.value || store.draft.value.version === 0}
            >
              Run test
            </BusyButton>
          )}
          <button
            type="button"
            class="btn btn-ghost"
            onClick={() => {
              const fresh = initialInputs(target);
              store.inputs.value = {
                ...fresh,
                stage,
                fn: target.kind === "file" ? store.inputs.value.fn || fresh.fn : "",
              };
              if (target.kind === "file" && target.fileKind === "plugin") {
                store.inputs.value = {
                  ...store.inputs.value,
                  input: fileInputFor(store.inputs.value.fn, "plugin"),
                };
              }
            }}
          >
            Reset inputs to the example
          </button>
        </div>
        {!editor && <p class="muted">Viewers can read tests; running one needs the editor role.</p>}
        <ProblemView problem={shownInline(problem) ? null : problem} id="test-problem" />
      </section>
      <section class="card stack" aria-labelledby="result-heading" aria-live="polite">
        <h2 id="result-heading">Result</h2>
        {latest ? (
          <RunResult run={latest} />
        ) : (
          <p class="muted">Run a test to see its outcome, value, logs and fuel.</p>
        )}
        {runs.length > 1 && (
          <div>
            <h3>Earlier runs this session</h3>
            <ul class="earlier-runs" aria-label="Earlier test runs">
              {runs.slice(1).map((run) => (
                <li key={run.id}>
                  <details>
                    <summary>
                      <span class={`badge ${run.ok ? "badge-ok" : "badge-error"}`}>
                        {run.ok ? "ok" : "failed"}
                      </span>{" "}
                      {run.label} · v{run.version} · {run.durationMs.toFixed(1)} ms · {formatClock(run.at)}
                    </summary>
                    <RunResult run={run} />
                  </details>
                </li>
              ))}
            </ul>
          </div>
        )}
      </section>
    </div>
  );
}
