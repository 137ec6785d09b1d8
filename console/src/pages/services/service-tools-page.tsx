// Tools of one service (/w/:ws/services/:service) with each tool's hook status; every tool links to
// its Hooks tab. A deleted or legacy service is shown as history only.
import { useRoute } from "preact-iso";
import { api, cancelledBy, jsonOf, params } from "../../api/client";
import { ProblemView } from "../../components/problem-view";
import { PageHeader } from "../../components/shell";
import { useResource } from "../../components/use-resource";
import { formatAgo } from "../../components/format";
import { type HookStatus, useHookStatuses } from "./hook-status";
import type { History } from "./types";
// Vite bundles the page's stylesheet through this import.
import "./services.css";
import { DataTable } from "../../components/data-table";

const STATUS: Record<HookStatus, { label: string; badge: string }[]> = {
  none: [{ label: "None", badge: "badge" }],
  draft: [{ label: "Draft", badge: "badge badge-draft" }],
  shadow: [{ label: "Shadow", badge: "badge badge-shadow" }],
  active: [{ label: "Active", badge: "badge badge-active" }],
  "active+shadow": [
    { label: "Active", badge: "badge badge-active" },
    { label: "Shadow", badge: "badge badge-shadow" },
  ],
  unknown: [{ label: "Unknown", badge: "badge badge-error" }],
};

export function ServiceToolsPage() {
  const { ws = "", service: serviceUid = "" } = useRoute().params;
  const history = useResource<History>(`${ws}|${serviceUid}`, (signal) =>
    jsonOf(
      api.v1.workspaces[":ws"].services[":svc"].history.$get(
        params({ ws, svc: serviceUid }),
        cancelledBy(signal),
      ),
    ),
  );
  const statuses = useHookStatuses(ws, history.data?.tools);
  const service = history.data?.service;
  const tools = (history.data?.tools ?? []).toSorted(
    (a, b) =>
      Number(a.removedAt !== null) - Number(b.removedAt !== null) ||
      a.upstreamName.localeCompare(b.upstreamName),
  );

  return (
    <>
      <PageHeader
        title={service ? service.name : "Tools"}
        trail={[{ label: "Services", href: `/w/${ws}` }]}
        actions={
          <a class="btn" href={`/w/${ws}/logs`}>
            Logs
          </a>
        }
      />
      <ProblemView problem={history.problem} />
      {service && (
        <div class="service-meta">
          <span class="mono" title="Upstream URL">
            {service.url}
          </span>
          <span>Last refresh {formatAgo(service.refreshedAt)}</span>
          {history.data?.historyOnly && (
            <span
              class="badge"
              title="Deleted services take no changes; their tools' hooks can only be reset"
            >
              {service.legacy ? "Legacy" : "Deleted"} · history only
            </span>
          )}
        </div>
      )}
      {history.data?.historyOnly && (
        <div class="notice">
          This service is {service?.legacy ? "a legacy service" : "deleted"}: its tools are kept for their
          hook history. Only a tool's hooks can still be reset, on its Hooks tab.
        </div>
      )}
      <DataTable
        class="data-table"
        label="Tools"
        ariaLabel={`Tools of ${service?.name ?? "the service"}`}
        // Rows are the sorted tools; the empty line waits for the answer, as the loading line does.
        rows={history.data && tools}
        rowKey={(tool) => tool.uid}
        rowAttributes={(tool) => ({ "data-tool": tool.upstreamName })}
        loading={history.loading}
        loadingText="Loading tools…"
        empty="No tools indexed yet. Refresh the service on the Services page to index its tools."
        columns={[
          {
            header: "Tool",
            cell: (tool) => (
              <>
                <a href={`/w/${ws}/tools/${tool.uid}`}>
                  <strong>{tool.name ?? tool.upstreamName}</strong>
                </a>
                {tool.name !== null && tool.name !== tool.upstreamName && (
                  <div class="muted small">upstream: {tool.upstreamName}</div>
                )}
              </>
            ),
          },
          {
            header: "Hook status",
            cell: (tool) => {
              const status = statuses.get(tool.uid);
              return (
                <span class="badge-list" data-testid="hook-status">
                  {status === undefined ? (
                    <span class="badge" aria-busy="true">
                      Loading…
                    </span>
                  ) : (
                    STATUS[status].map((s) => (
                      <span key={s.label} class={s.badge}>
                        {s.label}
                      </span>
                    ))
                  )}
                  {tool.reviewState === "review_required" && (
                    <a class="badge badge-review" href={`/w/${ws}?review=${tool.uid}`}>
                      Review required
                    </a>
                  )}
                  {tool.removedAt !== null && <span class="badge">Removed upstream</span>}
                </span>
              );
            },
          },
          {
            header: "Description",
            cellClass: "description-cell",
            title: (tool) => tool.description,
            cell: (tool) => tool.title ?? tool.description ?? <span class="muted">—</span>,
          },
          { header: "Updated", title: (tool) => tool.updatedAt, cell: (tool) => formatAgo(tool.updatedAt) },
        ]}
      />
    </>
  );
}
