// /w/:ws/tools/:tool — the Hooks tab of a tool: its adapter's editor, test console, versions and
// deployments (HookWorkspace), once the tool's definition (schemas, definition hash) is loaded.
import { useMemo } from "preact/hooks";
import { api, cancelledBy, jsonOf, params } from "../../api/client";
import { PageHeader } from "../../components/shell";
import { ProblemView } from "../../components/problem-view";
import { useResource } from "../../components/use-resource";
import { HookWorkspace } from "./hook-workspace";
import { toolTarget } from "./target";
import type { Tool } from "./types";

export function ToolHookPage({ ws, tool }: { ws?: string; tool?: string }) {
  const wsId = ws ?? "";
  const toolId = tool ?? "";
  const resource = useResource<Tool>(`${wsId}/${toolId}`, (signal) =>
    jsonOf(
      api.v1.workspaces[":ws"].tools[":tool"].$get(params({ ws: wsId, tool: toolId }), cancelledBy(signal)),
    ),
  );
  const data = resource.data;
  const target = useMemo(() => (data ? toolTarget(wsId, data) : null), [data, wsId]);
  const trail = [
    { label: "Services", href: `/w/${wsId}` },
    ...(data
      ? [{ label: data.serviceName, href: `/w/${wsId}/services/${encodeURIComponent(data.serviceUid)}` }]
      : []),
  ];
  if (!target || !data) {
    return (
      <>
        <PageHeader title="Hook" trail={trail} />
        <ProblemView problem={resource.problem} />
        {resource.loading && (
          <p class="muted" aria-busy="true">
            Loading the tool…
          </p>
        )}
      </>
    );
  }
  const subtitle = [
    data.name && data.name !== data.upstreamName ? `upstream ${data.upstreamName}` : null,
    data.description,
  ]
    .filter(Boolean)
    .join(" · ");
  return (
    <HookWorkspace target={target} title={data.name ?? data.upstreamName} subtitle={subtitle} trail={trail} />
  );
}
