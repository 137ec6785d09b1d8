// A read-only diff of a tool's accepted definition against the upstream's new one: CodeMirror's
// MergeView side by side on wide screens, its unified view on narrow ones. CodeMirror loads on first use.
import { useEffect, useRef, useState } from "preact/hooks";
import type { ToolDefinition } from "./types";

/** JSON with object keys sorted, so a diff shows changed values, not reordered keys. */
export function canonicalJson(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v !== null && typeof v === "object") {
      return Object.fromEntries(
        Object.keys(v)
          .toSorted()
          .map((key) => [key, sort((v as Record<string, unknown>)[key])]),
      );
    }
    return v;
  };
  return JSON.stringify(sort(value), null, 2);
}

/** The top-level fields that differ (name, description, inputSchema, outputSchema). */
export function changedFields(before: ToolDefinition, after: ToolDefinition): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys]
    .filter((key) => {
      const a = (before as unknown as Record<string, unknown>)[key];
      const b = (after as unknown as Record<string, unknown>)[key];
      return canonicalJson(a ?? null) !== canonicalJson(b ?? null);
    })
    .toSorted();
}

export function DefinitionDiff({ before, after }: { before: ToolDefinition; after: ToolDefinition }) {
  const host = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const a = canonicalJson(before);
  const b = canonicalJson(after);

  useEffect(() => {
    let destroy: (() => void) | undefined;
    let cancelled = false;
    void (async () => {
      try {
        const [{ MergeView, unifiedMergeView }, { EditorView, lineNumbers }, { EditorState }] =
          await Promise.all([
            import("@codemirror/merge"),
            import("@codemirror/view"),
            import("@codemirror/state"),
          ]);
        const parent = host.current;
        if (cancelled || !parent) return;
        const readOnly = [
          lineNumbers(),
          EditorState.readOnly.of(true),
          EditorView.editable.of(false),
          EditorView.lineWrapping,
          EditorView.theme({
            "&": { backgroundColor: "var(--surface)", color: "var(--text)", fontSize: "12.5px" },
            ".cm-gutters": {
              backgroundColor: "var(--surface-2)",
              color: "var(--muted)",
              borderColor: "var(--border)",
            },
            ".cm-content": { fontFamily: "var(--mono)" },
          }),
        ];
        parent.replaceChildren();
        if (window.matchMedia("(max-width: 760px)").matches) {
          const view = new EditorView({
            parent,
            state: EditorState.create({
              doc: b,
              extensions: [
                ...readOnly,
                unifiedMergeView({ original: a, mergeControls: false, gutter: true }),
              ],
            }),
          });
          destroy = () => view.destroy();
        } else {
          const view = new MergeView({
            parent,
            a: { doc: a, extensions: readOnly },
            b: { doc: b, extensions: readOnly },
            gutter: true,
            collapseUnchanged: { margin: 3, minSize: 8 },
          });
          destroy = () => view.destroy();
        }
      } catch (error) {
        if (!cancelled) setFailed(error instanceof Error ? error.message : String(error));
      }
    })();
    return () => {
      cancelled = true;
      destroy?.();
    };
  }, [a, b]);

  const fields = changedFields(before, after);
  return (
    <div class="definition-diff">
      <p class="diff-summary">
        Changed:{" "}
        {fields.length === 0 ? "nothing (only key order)" : fields.map((f) => <code key={f}>{f}</code>)}
      </p>
      <div class="diff-legend" aria-hidden="true">
        <span>Accepted definition</span>
        <span>Upstream now</span>
      </div>
      {failed === null ? (
        <div
          ref={host}
          class="diff-host"
          role="region"
          aria-label="Definition diff: accepted definition against the upstream's new one"
        >
          <span class="muted">Loading the diff…</span>
        </div>
      ) : (
        <div class="grid-2" role="region" aria-label="Definition diff">
          <pre aria-label="Accepted definition">{a}</pre>
          <pre aria-label="Upstream definition">{b}</pre>
        </div>
      )}
    </div>
  );
}
