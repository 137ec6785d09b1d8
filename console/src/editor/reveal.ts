// Moving the cursor to a diagnostic from outside the editor (the problems list).
import type { EditorView } from "@codemirror/view";

export function revealPosition(editor: EditorView | null, from: number) {
  if (!editor) return;
  const pos = Math.min(from, editor.state.doc.length);
  editor.dispatch({ selection: { anchor: pos }, scrollIntoView: true });
  editor.focus();
}
