// Services of a workspace (/w/:ws): live services with their tool counts and refresh, registering a
// new one (?register=1), tool definitions awaiting review with their diff (?review=<tool uid>), and
// deleted or legacy services as history.
import { useState } from "preact/hooks";
import { useRoute } from "preact-iso";
import { can } from "../../api/session";
import { ProblemView } from "../../components/problem-view";
import { PageHeader } from "../../components/shell";
import { useResource } from "../../components/use-resource";
import { useQueryState } from "../../components/query-state";
import { HistoryServices } from "./history-services";
import { loadServices } from "./load";
import { RegisterServiceForm } from "./register-service-form";
import { ReviewPanel } from "./review-panel";
import { ServicesTable } from "./services-table";
// Vite bundles the page's stylesheet through this import.
import "./services.css";

export function ServicesPage() {
  const ws = useRoute().params.ws ?? "";
  const { query, href, set } = useQueryState();
  const data = useResource(ws, (signal) => loadServices(ws, signal));
  const [registered, setRegistered] = useState<string | null>(null);
  const writer = can("editor");
  const registering = query.register === "1" && writer;

  return (
    <>
      <PageHeader
        title="Services"
        actions={
          writer &&
          !registering && (
            <a class="btn btn-primary" href={href({ register: "1" })}>
              Register service
            </a>
          )
        }
      />
      <p class="muted page-intro">
        Upstream MCP servers whose tools this workspace serves through its gateway. Refresh a service to index
        its tools/list; a changed tool definition waits for review.
      </p>
      {registering && (
        <section class="card" aria-labelledby="register-title">
          <h2 id="register-title">Register a service</h2>
          <RegisterServiceForm
            ws={ws}
            cancelHref={href({ register: null })}
            onRegistered={(service) => {
              setRegistered(service.name);
              set({ register: null }, true);
              void data.reload();
            }}
          />
        </section>
      )}
      {registered && (
        <div class="notice notice-ok" role="status">
          Service <strong>{registered}</strong> registered. Refresh it to index its tools.
        </div>
      )}
      <ProblemView problem={data.problem} />
      {data.data?.truncated && (
        <div class="notice notice-warn">This workspace has more services or tools than this page lists.</div>
      )}
      <ReviewPanel
        ws={ws}
        tools={data.data?.tools ?? []}
        selected={query.review ?? null}
        href={href}
        onAccepted={() => {
          set({ review: null }, true);
          void data.reload();
        }}
      />
      <ServicesTable
        ws={ws}
        services={data.data?.live}
        tools={data.data?.tools ?? []}
        loading={data.loading}
        reviewHref={(tool) => href({ review: tool })}
        onRefreshed={() => {
          setRegistered(null);
          void data.reload();
        }}
      />
      <HistoryServices ws={ws} services={data.data?.deleted ?? []} />
    </>
  );
}
