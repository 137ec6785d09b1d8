// The draft editor: the source with types, errors and completion, its config, Save under
// If-Match (a 412 opens the conflict view), Compile for the compiler's own diagnostics, and
// unsaved edits restored after a reload.
import type { EditorView } from "@codemirror/view";
import { useMemo, useRef, useState } from "preact/hooks";
import type { ProblemError } from "../../api/problem";
import { can } from "../../api/session";
import { BusyButton } from "../../components/busy-button";
import { ProblemView } from "../../components/problem-view";
import { LazyCodeEditor } from "../../editor/lazy";
import { revealPosition } from "../../editor/reveal";
import type { CompileDiagnostic } from "../../editor/server-diagnostics";
import { type CompileSummary, compileDraft } from "./compile";
import { ConflictPanel } from "./conflict-panel";
import { DiagnosticsList } from "./diagnostics-list";
import { formatBytes, formatTime } from "../../components/format";
import type { HookStore } from "./store";
import { clearUnsaved } from "./unsaved";

const NONE: CompileDiagnostic[] = [];

function RestoredNotice({ store }: { store: HookStore }) {
  const restored = store.restoredFrom.value;
  if (!restored || !store.dirty.value) return null;
  const discard = () => {
    const draft = store.draft.value;
    if (!draft) return;
    store.source.value = draft.source;
    store.config.value = JSON.stringify(draft.config, null, 2);
    store.restoredFrom.value = null;
    clearUnsaved(store.target.storageKey);
  };
  return (
    <div class="notice notice-warn row" role="status">
      <span>
        <strong>Unsaved changes restored</strong> from {formatTime(restored.savedAt)}
        {restored.baseVersion > 0 ? `, made on version ${restored.baseVersion}` : ""}.
      </span>
      <span class="spacer" />
      <button type="button" class="btn" onClick={discard}>
        Discard changes
      </button>
    </div>
  );
}

function TypesNotice({ store }: { store: HookStore }) {
  const problem = store.declarationsProblem.value;
  if (!problem) return null;
  if (problem.status === 404 && store.target.kind === "file") {
    return (
      <p class="notice" role="status">
        Generated types for this file are not available; completion and type checks use the standard library
        only.
      </p>
    );
  }
  return <ProblemView problem={problem} />;
}

export function EditorPanel({ store }: { store: HookStore }) {
  const view = useRef<EditorView | null>(null);
  const [note, setNote] = useState("");
  const [saveProblem, setSaveProblem] = useState<ProblemError | null>(null);
  const [compileProblem, setCompileProblem] = useState<ProblemError | null>(null);
  const [compiled, setCompiled] = useState<CompileSummary | null>(null);
  const draft = store.draft.value;
  const editor = can("editor");
  const target = store.target;
  const report = store.compileReport.value;
  const pinned = useMemo(
    () => (report && draft && report.version === draft.version ? report.diagnostics : NONE),
    [report, draft?.version],
  );

  const onChange = (text: string) => {
    store.source.value = text;
    store.remember();
    store.saved.value = "";
    store.reformatted.value = false;
  };

  const save = async () => {
    const answer = await store.save(note);
    if (answer === null) return; // conflict: the panel below takes over
    setNote("");
  };

  const compile = async () => {
    setCompiled(null);
    setCompiled(await compileDraft(store));
  };

  const label = target.kind === "tool" ? `Adapter source for ${target.name}` : `Source of ${target.name}`;

  return (
    <div class="editor-layout">
      <div class="stack editor-main">
        <RestoredNotice store={store} />
        <ConflictPanel store={store} note={note} />
        <TypesNotice store={store} />
        {editor && (
          <div class="editor-toolbar">
            <label class="note-field">
              <span class="sr-only">Version note</span>
              <input
                type="text"
                placeholder="What changed (optional note)"
                aria-label="Version note"
                value={note}
                maxLength={1000}
                onInput={(e) => setNote(e.currentTarget.value)}
              />
            </label>
            <BusyButton
              kind="primary"
              busyLabel="Saving…"
              onProblem={setSaveProblem}
              onClick={save}
              disabled={!store.dirty.value || store.conflict.value !== null}
              title={store.dirty.value ? "Save the draft as a new version" : "No unsaved changes"}
            >
              Save
            </BusyButton>
            <BusyButton
              busyLabel="Compiling…"
              onProblem={setCompileProblem}
              onClick={compile}
              disabled={store.dirty.value || !draft || draft.version === 0}
              title={
                store.dirty.value ? "Save first: the saved draft is compiled" : "Compile the saved draft"
              }
            >
              Compile
            </BusyButton>
            <span class="muted save-state" role="status" aria-live="polite">
              {store.saved.value ||
                (store.dirty.value
                  ? // The status header already says "Unsaved changes" on every view; here, what they start from.
                    draft && draft.version > 0
                    ? `Editing from version ${draft.version}`
                    : "Not saved yet"
                  : draft && draft.version > 0
                    ? `Version ${draft.version} saved ${formatTime(draft.updatedAt)}${draft.actor ? ` by ${draft.actor}` : ""}`
                    : "Nothing saved yet")}
            </span>
          </div>
        )}
        {store.reformatted.value && (
          <p class="notice" role="status" data-testid="reformatted">
            The API formatted the source with Prettier when saving it; the editor shows it as saved.
          </p>
        )}
        <ProblemView problem={saveProblem} id="save-problem" />
        <ProblemView problem={compileProblem} id="compile-problem" />
        {compiled && (
          <p class="notice notice-ok" role="status">
            Version {compiled.version} compiles
            {` (${formatBytes(compiled.compiledBytes)})`}
            {"stages" in compiled && compiled.stages.length > 0
              ? `; stages: ${compiled.stages.join(", ")}`
              : ""}
            {"exports" in compiled && compiled.exports.length > 0
              ? `; exports: ${compiled.exports.join(", ")}`
              : ""}
            .
          </p>
        )}
        {draft === null ? (
          <div class="code-skeleton" aria-busy="true">
            Loading the draft…
          </div>
        ) : (
          <LazyCodeEditor
            value={store.source.value}
            onChange={onChange}
            language={target.language}
            declarations={store.declarations.value}
            strict={target.kind === "tool"}
            compileDiagnostics={pinned}
            onDiagnostics={(list) => {
              store.diagnostics.value = list;
            }}
            label={label}
            describedBy="editor-keys"
            readOnly={!editor}
            viewRef={view}
          />
        )}
        <p id="editor-keys" class="hint">
          Tab indents. To leave the editor with the keyboard press Esc, then Tab. Ctrl-Space completes; hover
          a name for its type.
        </p>
        <details class="config-details">
          <summary>Config (context.config)</summary>
          <label>
            Config (JSON object)
            <textarea
              rows={6}
              value={store.config.value}
              readOnly={!editor}
              spellcheck={false}
              onInput={(e) => {
                store.config.value = e.currentTarget.value;
                store.remember();
              }}
            />
            <span class="hint">
              Non-secret values the hook reads as context.config; saved with the source.
            </span>
          </label>
        </details>
      </div>
      <aside class="editor-side">
        <DiagnosticsList
          items={store.diagnostics.value}
          onReveal={(from) => revealPosition(view.current, from)}
        />
      </aside>
    </div>
  );
}
