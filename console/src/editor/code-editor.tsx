// The hook source editor: CodeMirror 6 with the TypeScript language service in a worker
// (completion, hover types, type errors as lint diagnostics), the API compiler's diagnostics
// pinned beside them, and Tab indentation that still lets keyboard users leave
// (Escape, then Tab — CodeMirror's tab focus mode).
import { autocompletion } from "@codemirror/autocomplete";
import { indentWithTab } from "@codemirror/commands";
import { javascript } from "@codemirror/lang-javascript";
import { type Diagnostic, forceLinting, lintGutter, linter } from "@codemirror/lint";
import { EditorState, Transaction } from "@codemirror/state";
import { EditorView, keymap } from "@codemirror/view";
import { tsAutocompleteWorker, tsFacetWorker, tsHoverWorker, tsSyncWorker } from "@valtown/codemirror-ts";
import { basicSetup } from "codemirror";
import type { RefObject } from "preact";
import { useEffect, useLayoutEffect, useRef } from "preact/hooks";
import { type CompileDiagnostic, compileDiagnosticsField, setCompileDiagnostics } from "./server-diagnostics";
import { editorTheme } from "./theme";
import { renderHover } from "./hover";
import { startTsWorker, type TsClient } from "./ts-client";
import "./editor.css";

/** A diagnostic as the page lists it: where (1-based), what, and from which checker. */
export interface ListedDiagnostic {
  from: number;
  line: number;
  column: number;
  severity: Diagnostic["severity"];
  message: string;
  source: string;
}

export interface CodeEditorProps {
  /** The text; when it differs from the editor's (a restore, "Take theirs"), the editor takes it. */
  value: string;
  onChange: (text: string) => void;
  language: "ts" | "js";
  /** The target's generated declarations; null while loading or unavailable. */
  declarations: string | null;
  /** noImplicitAny (adapters are typed by defineToolAdapter; files often are not). */
  strict: boolean;
  compileDiagnostics: CompileDiagnostic[];
  onDiagnostics?: (list: ListedDiagnostic[]) => void;
  label: string;
  /** Id of the element describing the editor (keyboard hint). */
  describedBy?: string;
  readOnly?: boolean;
  viewRef?: RefObject<EditorView | null>;
}

function listed(state: EditorState, all: readonly Diagnostic[]): ListedDiagnostic[] {
  return [...all]
    .toSorted((a, b) => a.from - b.from)
    .map((d) => {
      const line = state.doc.lineAt(Math.min(d.from, state.doc.length));
      return {
        from: d.from,
        line: line.number,
        column: d.from - line.from + 1,
        severity: d.severity,
        message: d.message,
        source: d.source ?? "",
      };
    });
}

export function CodeEditor(props: CodeEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const client = useRef<TsClient | null>(null);
  const emitted = useRef(props.value);
  // Callbacks change every render; the editor reads the latest through this ref.
  const latest = useRef(props);
  latest.current = props;

  useEffect(() => {
    const parent = host.current;
    if (!parent) return undefined;
    const path = props.language === "ts" ? "/hook.ts" : "/hook.js";
    const ts = startTsWorker({
      path,
      code: props.value,
      declarations: props.declarations ?? "",
      strict: props.strict,
    });
    client.current = ts;
    const lint = linter(
      async (v) => {
        const doc = v.state.doc;
        await ts.ready;
        const fromTs = await ts.remote.getLints({ path, diagnosticCodesToIgnore: [] });
        const all = [...fromTs, ...v.state.field(compileDiagnosticsField)].filter((d) => d.to <= doc.length);
        // Report only for the text that was checked; a newer lint run follows an edit.
        if (v.state.doc === doc) latest.current.onDiagnostics?.(listed(v.state, all));
        return all;
      },
      {
        delay: 350,
        needsRefresh: (update) =>
          update.transactions.some((tr) => tr.effects.some((e) => e.is(setCompileDiagnostics))),
      },
    );
    const editor = new EditorView({
      parent,
      state: EditorState.create({
        doc: props.value,
        extensions: [
          basicSetup,
          keymap.of([indentWithTab]),
          javascript({ typescript: props.language === "ts" }),
          tsFacetWorker.of({ worker: ts.shape, path }),
          tsSyncWorker(),
          autocompletion({ override: [tsAutocompleteWorker()] }),
          tsHoverWorker({ renderTooltip: renderHover }),
          compileDiagnosticsField,
          lint,
          lintGutter(),
          editorTheme,
          EditorState.readOnly.of(props.readOnly === true),
          EditorView.contentAttributes.of({
            "aria-label": props.label,
            // Already focusable as contenteditable; the explicit tabindex tells checkers (axe) that its
            // scroller is reachable by keyboard, and keeps it so when read-only.
            tabindex: "0",
            ...(props.describedBy ? { "aria-describedby": props.describedBy } : {}),
          }),
          EditorView.updateListener.of((update) => {
            if (!update.docChanged) return;
            const text = update.state.doc.toString();
            emitted.current = text;
            // A replacement from outside (a reformatted save, restore, "Take theirs") is not an edit.
            if (update.transactions.every((tr) => tr.annotation(Transaction.remote) === true)) return;
            latest.current.onChange(text);
          }),
        ],
      }),
    });
    view.current = editor;
    if (props.viewRef) props.viewRef.current = editor;
    // Lint once the service is up, so a restored draft shows its errors without an edit.
    void ts.ready.then(() => forceLinting(editor));
    return () => {
      editor.destroy();
      ts.dispose();
      view.current = null;
      client.current = null;
      if (props.viewRef) props.viewRef.current = null;
    };
    // One editor per language; the other props are applied by the effects below.
  }, [props.language, props.strict]);

  // A layout effect runs in the same task as the render that read the value, so no keystroke can
  // land in between. Our own edits come back as props a render later, when the document may have
  // moved on: only a value the editor did not emit is a replacement from outside (restore, "Take
  // theirs", discard).
  useLayoutEffect(() => {
    const editor = view.current;
    if (!editor || props.value === emitted.current) return;
    emitted.current = props.value;
    const current = editor.state.doc.toString();
    if (current !== props.value) {
      editor.dispatch({
        changes: { from: 0, to: current.length, insert: props.value },
        annotations: Transaction.remote.of(true),
      });
    }
  }, [props.value]);

  useEffect(() => {
    const ts = client.current;
    const editor = view.current;
    if (!ts || !editor || props.declarations === null) return;
    void ts.ready
      .then(() => ts.remote.setDeclarations(props.declarations ?? ""))
      .then(() => forceLinting(editor));
  }, [props.declarations]);

  useEffect(() => {
    view.current?.dispatch({ effects: setCompileDiagnostics.of(props.compileDiagnostics) });
  }, [props.compileDiagnostics]);

  return <div class="code-editor" ref={host} />;
}
