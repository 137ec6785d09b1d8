// Live services: status, tool count, last refresh, and Refresh (tools/list → index) with its result.
import { useState } from "preact/hooks";
import { api, jsonOf, params } from "../../api/client";
import type { ProblemError } from "../../api/problem";
import { can } from "../../api/session";
import { BusyButton } from "../../components/busy-button";
import { ProblemView } from "../../components/problem-view";
import { formatAgo } from "../../components/format";
import type { RefreshResult, Service, Tool } from "./types";
import { DataTable } from "../../components/data-table";

interface Props {
  ws: string;
  services: Service[] | undefined;
  tools: Tool[];
  loading: boolean;
  reviewHref: (toolUid: string) => string;
  onRefreshed: () => void;
}

export function ServicesTable(props: Props) {
  const [results, setResults] = useState<Record<string, RefreshResult>>({});
  const [problems, setProblems] = useState<Record<string, ProblemError | null>>({});
  const writer = can("editor");
  const counts = new Map<string, { tools: number; review: number }>();
  for (const tool of props.tools) {
    if (tool.removedAt !== null) continue;
    const count = counts.get(tool.serviceUid) ?? { tools: 0, review: 0 };
    count.tools++;
    if (tool.reviewState === "review_required") count.review++;
    counts.set(tool.serviceUid, count);
  }
  const countOf = (service: Service) => counts.get(service.uid) ?? { tools: 0, review: 0 };

  const refresh = (service: Service) => async () => {
    const result = await jsonOf(
      api.v1.workspaces[":ws"].services[":svc"].refresh.$post(params({ ws: props.ws, svc: service.uid })),
    );
    setResults((current) => ({ ...current, [service.uid]: result }));
    props.onRefreshed();
  };

  return (
    <section class="stack" aria-labelledby="services-title">
      <h2 id="services-title">Live services</h2>
      <DataTable
        class="data-table"
        label="Services"
        labelledBy="services-title"
        rows={props.services}
        rowKey={(service) => service.uid}
        rowAttributes={(service) => ({ "data-service": service.name })}
        loading={props.loading}
        loadingText="Loading services…"
        empty={<>No services yet.{writer && " Register an upstream MCP server to index its tools."}</>}
        expansionClass="result-row"
        expansion={(service) => {
          const result = results[service.uid];
          const problem = problems[service.uid] ?? null;
          return (
            (result || problem) && (
              <>
                <ProblemView problem={problem} />
                {result && !problem && <RefreshSummary result={result} reviewHref={props.reviewHref} />}
              </>
            )
          );
        }}
        columns={[
          {
            header: "Name",
            cell: (service) => (
              <a href={`/w/${props.ws}/services/${service.uid}`}>
                <strong>{service.name}</strong>
              </a>
            ),
          },
          {
            header: "Status",
            cell: (service) => <ServiceStatus service={service} review={countOf(service).review} />,
          },
          { header: "Tools", cell: (service) => countOf(service).tools },
          {
            header: "Last refresh",
            title: (service) => service.refreshedAt,
            cell: (service) => formatAgo(service.refreshedAt),
          },
          {
            header: "URL",
            cellClass: "mono url-cell",
            title: (service) => service.url,
            cell: (service) => service.url,
          },
          writer && {
            header: "Actions",
            hideHeader: true,
            cellClass: "actions-cell",
            cell: (service) => (
              <BusyButton
                onClick={refresh(service)}
                onProblem={(p) => setProblems((current) => ({ ...current, [service.uid]: p }))}
                busyLabel="Refreshing…"
              >
                <span aria-hidden="true">Refresh</span>
                <span class="sr-only">Refresh {service.name}</span>
              </BusyButton>
            ),
          },
        ]}
      />
    </section>
  );
}

function ServiceStatus({ service, review }: { service: Service; review: number }) {
  if (review > 0) return <span class="badge badge-review">Review required ({review})</span>;
  if (service.refreshedAt === null) return <span class="badge">Not indexed</span>;
  return <span class="badge badge-ok">Live</span>;
}

function part(label: string, names: string[]) {
  return (
    <span class="refresh-part">
      <strong>{names.length}</strong> {label}
      {names.length > 0 && names.length <= 8 && <span class="muted"> ({names.join(", ")})</span>}
    </span>
  );
}

function RefreshSummary({
  result,
  reviewHref,
}: {
  result: RefreshResult;
  reviewHref: (tool: string) => string;
}) {
  const byName = new Map(result.tools.map((tool) => [tool.upstreamName, tool]));
  const review = result.changed
    .map((name) => byName.get(name))
    .filter((tool) => tool?.reviewState === "review_required");
  return (
    <div class="notice notice-ok refresh-summary" role="status">
      <span>Refreshed {result.service.name}:</span>
      {part("added", result.added)}
      {part("changed", result.changed)}
      {part("removed", result.removed)}
      {part("unchanged", result.unchanged)}
      {review.length > 0 && review[0] && (
        <a href={reviewHref(review[0].uid)}>
          Review {review.length === 1 ? "the changed definition" : `${review.length} changed definitions`}
        </a>
      )}
    </div>
  );
}
