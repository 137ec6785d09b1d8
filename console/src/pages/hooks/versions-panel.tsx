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
import { TableWrap } from "../../components/table-wrap";

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
        <ProblemView problem={store.versionsProblem.value} />
        {versions === null ? (
          <p class="muted" aria-busy="true">
            Loading versions…
          </p>
        ) : versions.length === 0 ? (
          <p class="empty">No versions yet: save the draft to create version 1.</p>
        ) : (
          <TableWrap label="Versions">
            <table>
              <caption class="sr-only">Saved versions, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Version</th>
                  <th scope="col">Actor</th>
                  <th scope="col">Channel</th>
                  <th scope="col">Time</th>
                  <th scope="col">Note</th>
                  <th scope="col">Size</th>
                  <th scope="col">
                    <span class="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {versions.map((v) => (
                  <tr key={v.version} class={v.version === diff ? "highlight" : undefined}>
                    <td>
                      <strong>v{v.version}</strong>{" "}
                      {v.version === head && <span class="badge badge-draft">draft</span>}
                      {v.restoredFrom !== null && (
                        <span class="muted"> (restored from v{v.restoredFrom})</span>
                      )}
                    </td>
                    <td>{v.actor}</td>
                    <td>
                      <span class="badge">{v.channel}</span>
                    </td>
                    <td>{formatTime(v.createdAt)}</td>
                    <td class="wrap">{v.note ?? <span class="muted">—</span>}</td>
                    <td>{formatBytes(v.bytes)}</td>
                    <td>
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
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
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
