// /w/:ws/files — lib/ and plugins/ files with their state (draft, shadow, active), a kind filter
// (?kind=lib|plugin) and New file (the path checked as the API checks it).
import { useLocation } from "preact-iso";
import { useState } from "preact/hooks";
import type { InferResponseType } from "hono/client";
import { api, cancelledBy, jsonOf, params } from "../../api/client";
import { can } from "../../api/session";
import { PageHeader } from "../../components/shell";
import { useResource } from "../../components/use-resource";
import { withQuery } from "../hooks/url";
import { filePageHref, filePathProblem } from "./file-path";
import "./files.css";
import { DataTable } from "../../components/data-table";
import { PageState } from "../../components/page-state";

const listFiles = api.v1.workspaces[":ws"].files.$get;
type FileItem = InferResponseType<typeof listFiles, 200>["items"][number];

function NewFile({ ws, existing }: { ws: string; existing: Set<string> }) {
  const { route } = useLocation();
  const [path, setPath] = useState("lib/");
  const [touched, setTouched] = useState(false);
  const problem =
    filePathProblem(path) ?? (existing.has(path) ? "That file exists; open it from the list." : null);
  const submit = (event: Event) => {
    event.preventDefault();
    setTouched(true);
    if (problem === null) route(filePageHref(ws, path));
  };
  return (
    <form class="card new-file" onSubmit={submit} noValidate aria-labelledby="new-file-heading">
      <h2 id="new-file-heading">New file</h2>
      <div class="row new-file-row">
        <label class="grow">
          File path
          <input
            type="text"
            value={path}
            spellcheck={false}
            autocomplete="off"
            placeholder="lib/request-policy.ts"
            aria-invalid={touched && problem !== null}
            aria-describedby="new-file-help"
            onInput={(e) => {
              setPath(e.currentTarget.value);
              setTouched(true);
            }}
          />
        </label>
        <button type="submit" class="btn btn-primary">
          Create file
        </button>
      </div>
      <span id="new-file-help" class={touched && problem ? "field-error" : "hint"} aria-live="polite">
        {touched && problem
          ? problem
          : "lib/<name>.ts for request hooks and helpers, plugins/<name>.ts for plugins. It exists once its first draft is saved."}
      </span>
    </form>
  );
}

function Status({ item }: { item: FileItem }) {
  return (
    <span class="row">
      {item.version > 0 && <span class="badge badge-draft">draft v{item.version}</span>}
      {item.deployments.shadow && <span class="badge badge-shadow">shadow</span>}
      {item.deployments.active && <span class="badge badge-active">active</span>}
    </span>
  );
}

export function FilesPage({ ws }: { ws?: string }) {
  const wsId = ws ?? "";
  const { url, query } = useLocation();
  const kind = query.kind === "lib" || query.kind === "plugin" ? query.kind : null;
  const files = useResource(`${wsId}/${kind ?? ""}`, (signal) =>
    jsonOf(
      listFiles(
        { ...params({ ws: wsId }), query: { limit: "200", ...(kind ? { kind } : {}) } },
        cancelledBy(signal),
      ),
    ),
  );
  const items = files.data?.items ?? [];
  const filters = [
    { id: null, label: "All" },
    { id: "lib", label: "lib/" },
    { id: "plugin", label: "plugins/" },
  ] as const;
  return (
    <>
      <PageHeader title="Files" />
      <p class="muted page-subtitle">
        Request hooks and helpers in lib/, plugins in plugins/: each file has the same draft, test and deploy
        lifecycle as a tool's hook.
      </p>
      {can("editor") && <NewFile ws={wsId} existing={new Set(items.map((i) => i.path))} />}
      <nav class="tabs" aria-label="File kinds">
        {filters.map((f) => (
          <a
            key={f.label}
            href={withQuery(url, { kind: f.id })}
            aria-current={kind === f.id ? "page" : undefined}
          >
            {f.label}
          </a>
        ))}
      </nav>
      <PageState
        state={{ data: files.data?.items, problem: files.problem, loading: files.loading }}
        loadingText="Loading files…"
        isEmpty={(all) => all.length === 0}
        empty={`No files yet${kind ? ` in ${kind === "lib" ? "lib/" : "plugins/"}` : ""}.`}
      >
        {(rows) => (
          <DataTable
            label="Files"
            caption="Workspace files"
            rows={rows}
            rowKey={(item) => item.path}
            columns={[
              {
                header: "Path",
                cell: (item) => (
                  <a href={filePageHref(wsId, item.path)} class="mono">
                    {item.path}
                  </a>
                ),
              },
              { header: "Kind", cell: (item) => (item.kind === "lib" ? "lib" : `plugin ${item.name}`) },
              { header: "Status", cell: (item) => <Status item={item} /> },
            ]}
          />
        )}
      </PageState>
      {files.data?.nextCursor && <p class="hint">Showing the first 200 files.</p>}
    </>
  );
}
