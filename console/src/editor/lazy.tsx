// The editors load on first use: CodeMirror, its languages and the merge view stay out of the
// console's first chunk, which every page loads.
import type { ComponentType } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { CodeEditorProps } from "./code-editor";
import type { DiffViewProps } from "./diff-view";

function lazily<P extends object>(
  load: () => Promise<ComponentType<P>>,
  placeholder: string,
): ComponentType<P> {
  let loaded: ComponentType<P> | null = null;
  return (props: P) => {
    const [Component, setComponent] = useState<ComponentType<P> | null>(() => loaded);
    const [failed, setFailed] = useState<string | null>(null);
    useEffect(() => {
      if (Component) return;
      load().then(
        (c) => {
          loaded = c;
          setComponent(() => c);
          return c;
        },
        (error: unknown) => setFailed(error instanceof Error ? error.message : String(error)),
      );
    }, []);
    if (failed) {
      return (
        <div class="problem" role="alert">
          <div class="problem-title">The editor could not be loaded</div>
          <div class="problem-detail">{failed}</div>
        </div>
      );
    }
    if (!Component) {
      return (
        <div class="code-skeleton" aria-busy="true">
          {placeholder}
        </div>
      );
    }
    return <Component {...props} />;
  };
}

export const LazyCodeEditor = lazily<CodeEditorProps>(
  () => import("./code-editor").then((m) => m.CodeEditor),
  "Loading the editor…",
);

export const LazyDiffView = lazily<DiffViewProps>(
  () => import("./diff-view").then((m) => m.DiffView),
  "Loading the diff…",
);
