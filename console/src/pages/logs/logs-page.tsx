// Hook-run logs of the workspace (/w/:ws/logs): filters, the page cursor, Follow and the open run all
// live in the query string (?stage=…&cursor=…&follow=1&run=<id>), so reload and back restore them.
import { useEffect } from "preact/hooks";
import { useRoute } from "preact-iso";
import { ProblemView } from "../../components/problem-view";
import { PageHeader } from "../../components/shell";
import { useResource } from "../../components/use-resource";
import { fieldErrors } from "../../components/field-errors";
import { LogFilters } from "./log-filters";
import { useQueryState } from "../../components/query-state";
import { RunDetail } from "./run-detail";
import { RunsTable } from "./runs-table";
import { runPage } from "./run-lookup";
import { FILTER_KEYS, isDifferingShadow, type RunQuery } from "./types";
import { useFollow } from "./use-follow";
// Vite bundles the page's stylesheet through this import.
import "./logs.css";
import { TableWrap } from "../../components/data-table";

const PAGE_SIZE = 50;

export function LogsPage() {
  const ws = useRoute().params.ws ?? "";
  const { query, href, set } = useQueryState();
  const cursor = query.cursor ?? "";
  const following = query.follow === "1" && cursor === "";

  const filters: RunQuery = { limit: String(PAGE_SIZE) };
  for (const key of FILTER_KEYS) if (query[key]) filters[key] = query[key];
  if (cursor) filters.cursor = cursor;
  const search = new URLSearchParams(Object.entries(filters)).toString();
  const runs = useResource(`${ws}?${search}`, (signal) => runPage(ws, filters, signal));
  useFollow(following, () => void runs.reload());

  // Opening a run brings its panel into view.
  useEffect(() => {
    if (query.run) document.getElementById("run-detail")?.scrollIntoView({ block: "nearest" });
  }, [query.run]);

  const onlyDiffering = query.differed === "1";
  const code = query.code ?? "";
  const items = (runs.data?.items ?? []).filter(
    (run) => (!onlyDiffering || isDifferingShadow(run)) && (code === "" || run.code === code),
  );
  const hidden = (runs.data?.items.length ?? 0) - items.length;

  return (
    <>
      <PageHeader
        title="Logs"
        actions={
          <>
            <button
              type="button"
              class={`btn${following ? " btn-primary" : ""}`}
              aria-pressed={following}
              title={cursor ? "Following shows the newest runs: it starts from the first page" : undefined}
              onClick={() => set({ follow: following ? null : "1", cursor: null })}
            >
              {following && <span class="live-dot" aria-hidden="true" />}
              Follow
            </button>
            <button type="button" class="btn" onClick={() => void runs.reload()} disabled={runs.loading}>
              Reload
            </button>
          </>
        }
      />
      <LogFilters query={query} apply={(changes) => set(changes)} errors={fieldErrors(runs.problem)} />
      {query.run && (
        <RunDetail
          key={query.run}
          id={query.run}
          known={runs.data?.items.find((run) => run.id === query.run)}
          closeHref={href({ run: null })}
        />
      )}
      <ProblemView problem={runs.problem} />
      <div class="row logs-toolbar">
        <label class="inline">
          <input
            type="checkbox"
            checked={onlyDiffering}
            onChange={(event) => set({ differed: event.currentTarget.checked ? "1" : null }, true)}
          />
          Only shadow runs that differed
        </label>
        <label class="inline">
          Reason code
          <input
            class="code-filter"
            value={code}
            placeholder="e.g. hook_timeout"
            spellcheck={false}
            onChange={(event) => set({ code: event.currentTarget.value.trim() }, true)}
          />
        </label>
        <span class="hint">These two filter the loaded page.</span>
        <span class="spacer" />
        <span class="muted" role="status" aria-live="polite">
          {following ? "Following: newest runs every few seconds. " : ""}
          {runs.data
            ? `${items.length} run${items.length === 1 ? "" : "s"}${hidden > 0 ? ` (${hidden} hidden)` : ""}`
            : ""}
        </span>
      </div>
      {runs.data && items.length > 0 && <RunsTable runs={items} selected={query.run ?? null} href={href} />}
      {runs.data && items.length === 0 && (
        <TableWrap label="Stage runs">
          <div class="empty">No runs match these filters{cursor ? " on this page" : ""}.</div>
        </TableWrap>
      )}
      {!runs.data && runs.loading && <div class="empty">Loading runs…</div>}
      <nav class="row pager" aria-label="Log pages">
        {cursor && (
          <a class="btn" href={href({ cursor: null, run: null })}>
            Newest
          </a>
        )}
        {runs.data?.nextCursor && (
          <a class="btn" href={href({ cursor: runs.data.nextCursor, run: null, follow: null })}>
            Older runs
          </a>
        )}
      </nav>
    </>
  );
}
