// Live services: status, tool count, last refresh, and Refresh (tools/list → index) with its result.
import { useState } from "preact/hooks";
import { api, jsonOf, params } from "../../api/client";
import type { ProblemError } from "../../api/problem";
import { can } from "../../api/session";
import { BusyButton } from "../../components/busy-button";
import { ProblemView } from "../../components/problem-view";
import { formatAgo } from "../../components/format";
import type { RefreshResult, Service, Tool } from "./types";
import { TableWrap } from "../../components/table-wrap";

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
      <TableWrap label="Services" busy={props.loading}>
        <table class="data-table" aria-labelledby="services-title">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Status</th>
              <th scope="col">Tools</th>
              <th scope="col">Last refresh</th>
              <th scope="col">URL</th>
              {writer && (
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {props.services?.map((service) => {
              const count = counts.get(service.uid) ?? { tools: 0, review: 0 };
              const result = results[service.uid];
              const problem = problems[service.uid] ?? null;
              return [
                <tr key={service.uid} data-service={service.name}>
                  <td>
                    <a href={`/w/${props.ws}/services/${service.uid}`}>
                      <strong>{service.name}</strong>
                    </a>
                  </td>
                  <td>
                    <ServiceStatus service={service} review={count.review} />
                  </td>
                  <td>{count.tools}</td>
                  <td title={service.refreshedAt ?? undefined}>{formatAgo(service.refreshedAt)}</td>
                  <td class="mono url-cell" title={service.url}>
                    {service.url}
                  </td>
                  {writer && (
                    <td class="actions-cell">
                      <BusyButton
                        onClick={refresh(service)}
                        onProblem={(p) => setProblems((current) => ({ ...current, [service.uid]: p }))}
                        busyLabel="Refreshing…"
                      >
                        <span aria-hidden="true">Refresh</span>
                        <span class="sr-only">Refresh {service.name}</span>
                      </BusyButton>
                    </td>
                  )}
                </tr>,
                (result || problem) && (
                  <tr key={`${service.uid}-result`} class="result-row">
                    <td colSpan={writer ? 6 : 5}>
                      <ProblemView problem={problem} />
                      {result && !problem && <RefreshSummary result={result} reviewHref={props.reviewHref} />}
                    </td>
                  </tr>
                ),
              ];
            })}
          </tbody>
        </table>
        {props.services?.length === 0 && (
          <div class="empty">
            No services yet.{writer && " Register an upstream MCP server to index its tools."}
          </div>
        )}
        {!props.services && props.loading && <div class="empty">Loading services…</div>}
      </TableWrap>
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
