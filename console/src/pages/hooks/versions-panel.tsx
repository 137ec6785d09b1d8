// Draft history: every saved version (who, where from, when, why), a side-by-side diff of one
// version against any other (?diff=<v>&against=<w>), and restore into the draft (If-Match).
import { useLocation } from "preact-iso";
import { useEffect, useState } from "preact/hooks";
import { cancelledBy, jsonOf } from "../../api/client";
import type { ProblemError } from "../../api/problem";
import { can } from "../../api/session";
import { BusyButton } from "../../components/busy-button";
import { ProblemView } from "../../components/problem-view";
import { LazyDiffView } from "../../editor/lazy";
import { formatBytes, formatTime } from "../../components/format";
import { asProblem, type HookStore } from "./store";
import type { VersionFull } from "./types";
import { withQuery } from "./url";
import { DataTable } from "../../components/data-table";
import { PageState } from "../../components/page-state";

const parseVersion = (text: string | undefined): number | null =>
  text !== undefined && /^[1-9][0-9]*$/.test(text) ? Number(text) : null;

function useVersionSource(store: HookStore, version: number | null) {
  const [data, setData] = useState<VersionFull | null>(null);
  const [problem, setProblem] = useState<ProblemError | null>(null);
  useEffect(() => {
    setData(null);
    setProblem(null);
    if (version === null) return undefined;
    const abort = new AbortController();
    jsonOf(
      store.lifecycle.versions[":n"].$get({ param: { n: String(version) } }, cancelledBy(abort.signal)),
    ).then(
      (v) => setData(v),
      (error: unknown) => {
        if (!abort.signal.aborted) setProblem(asProblem(error));
      },
    );
    return () => abort.abort();
  }, [store.target.base, version]);
  return { data, problem };
}

function VersionDiff({ store, diff, against }: { store: HookStore; diff: number; against: number | null }) {
  const { url, route } = useLocation();
  const right = useVersionSource(store, diff);
  const left = useVersionSource(store, against);
  const versions = store.versions.value ?? [];
  return (
    <section class="card stack" aria-labelledby="diff-heading">
      <div class="row">
        <h2 id="diff-heading">Version {diff} compared with</h2>
        <label class="inline">
          <span class="sr-only">Compare with version</span>
          <select
            aria-label="Compare with version"
            value={against === null ? "" : String(against)}
            onChange={(e) => route(withQuery(url, { against: e.currentTarget.value || "none" }))}
          >
            <option value="">nothing (empty)</option>
            {versions
              .filter((v) => v.version !== diff)
              .map((v) => (
                <option key={v.version} value={String(v.version)}>
                  Version {v.version}
                </option>
              ))}
          </select>
        </label>
        <span class="spacer" />
        <a class="btn" href={withQuery(url, { diff: null, against: null })}>
          Close diff
        </a>
      </div>
      <ProblemView problem={right.problem ?? left.problem} />
      {right.data && (against === null || left.data) ? (
        <>
          <LazyDiffView
            a={{ text: left.data?.source ?? "", label: against === null ? "Empty" : `Version ${against}` }}
            b={{ text: right.data.source, label: `Version ${diff}` }}
            language={store.target.language}
          />
          {JSON.stringify(left.data?.config ?? {}) !== JSON.stringify(right.data.config) && (
            <p class="notice">
              Config differs: <code>{JSON.stringify(left.data?.config ?? {})}</code> →{" "}
              <code>{JSON.stringify(right.data.config)}</code>
            </p>
          )}
        </>
      ) : (
        !right.problem &&
        !left.problem && (
          <div class="code-skeleton" aria-busy="true">
            Loading versions…
          </div>
        )
      )}
    </section>
  );
}

export function VersionsPanel({ store }: { store: HookStore }) {
  const { url, query } = useLocation();
  const [problems, setProblems] = useState<Record<number, ProblemError | null>>({});
  const [more, setMore] = useState<ProblemError | null>(null);
  const versions = store.versions.value;
  const head = store.draft.value?.version ?? 0;
  const diff = parseVersion(query.diff);
  const againstParam = query.against;
  const against =
    againstParam === "none"
      ? null
      : (parseVersion(againstParam) ?? (diff !== null && diff > 1 ? diff - 1 : null));
  const editor = can("editor");

  return (
    <div class="stack">
      {diff !== null && <VersionDiff store={store} diff={diff} against={against} />}
      <section class="card stack" aria-labelledby="versions-heading">
        <h2 id="versions-heading">Versions</h2>
        <PageState
          state={{
            data: versions ?? undefined,
            problem: store.versionsProblem.value,
            loading: versions === null,
          }}
          loadingText="Loading versions…"
          isEmpty={(all) => all.length === 0}
          empty="No versions yet: save the draft to create version 1."
        >
          {(rows) => (
            <DataTable
              label="Versions"
              caption="Saved versions, newest first"
              rows={rows}
              rowKey={(v) => v.version}
              rowAttributes={(v) => ({ class: v.version === diff ? "highlight" : undefined })}
              columns={[
                {
                  header: "Version",
                  cell: (v) => (
                    <>
                      <strong>v{v.version}</strong>{" "}
                      {v.version === head && <span class="badge badge-draft">draft</span>}
                      {v.restoredFrom !== null && (
                        <span class="muted"> (restored from v{v.restoredFrom})</span>
                      )}
                    </>
                  ),
                },
                { header: "Actor", cell: (v) => v.actor },
                { header: "Channel", cell: (v) => <span class="badge">{v.channel}</span> },
                { header: "Time", cell: (v) => formatTime(v.createdAt) },
                { header: "Note", cellClass: "wrap", cell: (v) => v.note ?? <span class="muted">—</span> },
                { header: "Size", cell: (v) => formatBytes(v.bytes) },
                {
                  header: "Actions",
                  hideHeader: true,
                  cell: (v) => (
                    <>
                      <div class="row">
                        <a class="btn" href={withQuery(url, { diff: String(v.version), against: null })}>
                          Diff<span class="sr-only"> version {v.version}</span>
                        </a>
                        {editor && v.version !== head && (
                          <BusyButton
                            busyLabel="Restoring…"
                            onProblem={(p) => setProblems((all) => ({ ...all, [v.version]: p }))}
                            onClick={() => store.restore(v.version)}
                            disabled={store.dirty.value}
                            title={
                              store.dirty.value
                                ? "Save or discard your unsaved changes first"
                                : `Copy version ${v.version} into a new draft version`
                            }
                          >
                            Restore<span class="sr-only"> version {v.version}</span>
                          </BusyButton>
                        )}
                      </div>
                      <ProblemView problem={problems[v.version]} />
                    </>
                  ),
                },
              ]}
            />
          )}
        </PageState>
        {store.versionsCursor.value && (
          <BusyButton onProblem={setMore} onClick={() => store.loadVersions(true)} busyLabel="Loading…">
            Load older versions
          </BusyButton>
        )}
        <ProblemView problem={more} />
      </section>
    </div>
  );
}
