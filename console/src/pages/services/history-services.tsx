// Deleted and legacy services: kept for their tools' hook history, read-only (only a tool's hooks can
// still be reset, on the tool's page).
import { formatTime } from "../../components/format";
import type { Service } from "./types";
import { DataTable } from "../../components/data-table";

export function HistoryServices({ ws, services }: { ws: string; services: Service[] }) {
  if (services.length === 0) return null;
  return (
    <section class="stack" aria-labelledby="history-title">
      <div>
        <h2 id="history-title">Deleted and legacy services</h2>
        <p class="muted section-hint">
          History only: these take no refreshes or changes. Their tools keep their hook history.
        </p>
      </div>
      <DataTable
        class="data-table"
        label="Service history"
        labelledBy="history-title"
        rows={services}
        rowKey={(service) => service.uid}
        rowAttributes={(service) => ({ class: "history-row", "data-service": service.name })}
        columns={[
          {
            header: "Name",
            cell: (service) => <a href={`/w/${ws}/services/${service.uid}`}>{service.name}</a>,
          },
          {
            header: "Status",
            cell: (service) => (
              <>
                <span class="badge">{service.legacy ? "Legacy" : "Deleted"}</span>{" "}
                <span class="badge">History only</span>
              </>
            ),
          },
          {
            header: "Deleted",
            title: (service) => service.deletedAt,
            cell: (service) => (
              <>
                {service.deletedAt ? formatTime(service.deletedAt) : "—"}
                {service.deletedBy && <span class="muted"> by {service.deletedBy}</span>}
              </>
            ),
          },
          {
            header: "URL",
            cellClass: "mono url-cell",
            title: (service) => service.url,
            cell: (service) => service.url,
          },
        ]}
      />
    </section>
  );
}
