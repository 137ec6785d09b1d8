// Diagnostics the API's compiler reported (1-based line and column) pinned into the document:
// converted to positions once, then mapped through every edit so they stay on their code
// until the next compile replaces them.
import type { Diagnostic } from "@codemirror/lint";
import { StateEffect, StateField, type Text } from "@codemirror/state";

/** One entry of a `compile_failed` problem's `diagnostics[]`. */
export interface CompileDiagnostic {
  code: string;
  message: string;
  line: number;
  column: number;
}

export const setCompileDiagnostics = StateEffect.define<CompileDiagnostic[]>();

function toRange(doc: Text, d: CompileDiagnostic): { from: number; to: number } {
  const lineNumber = Math.min(Math.max(d.line, 1), doc.lines);
  const line = doc.line(lineNumber);
  const from = Math.min(line.from + Math.max(d.column - 1, 0), line.to);
  // Underline the word at the position, or the rest of the line when there is none.
  const word = /^[\w$]+/.exec(line.text.slice(from - line.from))?.[0].length ?? 0;
  return { from, to: word > 0 ? from + word : Math.max(line.to, from) };
}

export const compileDiagnosticsField = StateField.define<Diagnostic[]>({
  create: () => [],
  update(value, tr) {
    for (const effect of tr.effects) {
      if (effect.is(setCompileDiagnostics)) {
        return effect.value.map((d) => ({
          ...toRange(tr.state.doc, d),
          severity: "error" as const,
          message: d.message,
          source: `compiler: ${d.code}`,
        }));
      }
    }
    if (!tr.docChanged || value.length === 0) return value;
    return value.map((d) => ({
      ...d,
      from: tr.changes.mapPos(d.from, 1),
      to: Math.max(tr.changes.mapPos(d.to, -1), tr.changes.mapPos(d.from, 1)),
    }));
  },
});
