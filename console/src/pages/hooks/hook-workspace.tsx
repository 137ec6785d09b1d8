// A hook page, for a tool's adapter or a workspace file: the status header, quotas, and the four
// views (?view=editor|test|versions|deploy). The editor stays mounted while hidden, so its undo
// history and language service survive a look at another view.
import { useLocation } from "preact-iso";
import { useEffect, useMemo } from "preact/hooks";
import { PageHeader } from "../../components/shell";
import { ProblemView } from "../../components/problem-view";
import { DeployPanel } from "./deploy-panel";
import { EditorPanel } from "./editor-panel";
import { QuotaBar } from "./quota-bar";
import { StatusBadges } from "./status-header";
import { createHookStore } from "./store";
import type { HookTarget } from "./target";
import { TestPanel } from "./test-panel";
import { withQuery } from "./url";
import { VersionsPanel } from "./versions-panel";
import "./hooks.css";

const VIEWS = [
  { id: "editor", label: "Editor" },
  { id: "test", label: "Test" },
  { id: "versions", label: "Versions" },
  { id: "deploy", label: "Deploy" },
] as const;

type ViewId = (typeof VIEWS)[number]["id"];

interface Props {
  target: HookTarget;
  title: string;
  subtitle?: string;
  trail: { label: string; href: string }[];
}

export function HookWorkspace({ target, title, subtitle, trail }: Props) {
  const { url, query } = useLocation();
  const store = useMemo(() => createHookStore(target), [target.base]);
  const view: ViewId = VIEWS.some((v) => v.id === query.view) ? (query.view as ViewId) : "editor";

  useEffect(() => {
    const abort = new AbortController();
    void store.load(abort.signal);
    void store.loadDeclarations();
    void store.refreshQuotas();
    void store.loadRevisions();
    void store.loadVersions();
    return () => abort.abort();
  }, [store]);

  useEffect(() => {
    const label = VIEWS.find((v) => v.id === view)?.label ?? "";
    document.title = `${title} · ${label} · Rayrun Hooks`;
  }, [title, view]);

  return (
    <div class="hook-page stack">
      <PageHeader title={title} trail={trail} actions={<StatusBadges store={store} />} />
      {subtitle && <p class="muted page-subtitle">{subtitle}</p>}
      <QuotaBar store={store} />
      <ProblemView problem={store.loadProblem.value} />
      <nav class="tabs" aria-label="Hook views">
        {VIEWS.map((v) => (
          <a
            key={v.id}
            href={withQuery(url, {
              view: v.id === "editor" ? null : v.id,
              diff: null,
              against: null,
              stage: null,
              version: null,
            })}
            aria-current={view === v.id ? "page" : undefined}
          >
            {v.label}
            {v.id === "editor" && store.dirty.value && (
              <span class="dirty-dot" aria-label="unsaved changes" />
            )}
          </a>
        ))}
      </nav>
      <div hidden={view !== "editor"}>
        <EditorPanel store={store} />
      </div>
      {view === "test" && <TestPanel store={store} />}
      {view === "versions" && <VersionsPanel store={store} />}
      {view === "deploy" && <DeployPanel store={store} />}
    </div>
  );
}
