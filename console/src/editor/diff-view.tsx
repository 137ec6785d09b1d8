// A read-only side-by-side diff of two sources (@codemirror/merge). On narrow screens the two
// sides become one unified view, since two 180px columns of code are unreadable.
import { javascript } from "@codemirror/lang-javascript";
import { MergeView, unifiedMergeView } from "@codemirror/merge";
import { EditorState, type Extension } from "@codemirror/state";
import { EditorView, lineNumbers } from "@codemirror/view";
import { useEffect, useRef, useState } from "preact/hooks";
import { editorTheme } from "./theme";
import "./editor.css";

export interface DiffViewProps {
  /** Left (older / theirs). */
  a: { text: string; label: string };
  /** Right (newer / mine). */
  b: { text: string; label: string };
  language: "ts" | "js";
}

const NARROW = "(max-width: 760px)";

function readOnly(label: string, language: "ts" | "js"): Extension[] {
  return [
    lineNumbers(),
    javascript({ typescript: language === "ts" }),
    editorTheme,
    EditorState.readOnly.of(true),
    EditorView.editable.of(false),
    EditorView.contentAttributes.of({ "aria-label": label, tabindex: "0" }),
  ];
}

export function DiffView({ a, b, language }: DiffViewProps) {
  const host = useRef<HTMLDivElement>(null);
  const [narrow, setNarrow] = useState(() => window.matchMedia(NARROW).matches);

  useEffect(() => {
    const query = window.matchMedia(NARROW);
    const change = () => setNarrow(query.matches);
    query.addEventListener("change", change);
    return () => query.removeEventListener("change", change);
  }, []);

  useEffect(() => {
    const parent = host.current;
    if (!parent) return undefined;
    if (narrow) {
      const view = new EditorView({
        parent,
        state: EditorState.create({
          doc: b.text,
          extensions: [
            ...readOnly(`Changes from ${a.label} to ${b.label}`, language),
            unifiedMergeView({ original: a.text, mergeControls: false, highlightChanges: true }),
          ],
        }),
      });
      return () => view.destroy();
    }
    const merge = new MergeView({
      parent,
      a: { doc: a.text, extensions: readOnly(a.label, language) },
      b: { doc: b.text, extensions: readOnly(b.label, language) },
      highlightChanges: true,
      gutter: true,
      collapseUnchanged: { margin: 3, minSize: 8 },
    });
    return () => merge.destroy();
  }, [a.text, b.text, a.label, b.label, language, narrow]);

  return (
    <div class="merge-editor">
      <div class="merge-labels" aria-hidden="true">
        {narrow ? (
          <span>
            {a.label} → {b.label}
          </span>
        ) : (
          <>
            <span>{a.label}</span>
            <span>{b.label}</span>
          </>
        )}
      </div>
      <div ref={host} />
    </div>
  );
}
