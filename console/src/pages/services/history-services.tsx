// Deleted and legacy services: kept for their tools' hook history, read-only (only a tool's hooks can
// still be reset, on the tool's page).
import { formatTime } from "../../components/format";
import type { Service } from "./types";
import { TableWrap } from "../../components/table-wrap";

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
      <TableWrap label="Service history">
        <table class="data-table" aria-labelledby="history-title">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Status</th>
              <th scope="col">Deleted</th>
              <th scope="col">URL</th>
            </tr>
          </thead>
          <tbody>
            {services.map((service) => (
              <tr key={service.uid} class="history-row" data-service={service.name}>
                <td>
                  <a href={`/w/${ws}/services/${service.uid}`}>{service.name}</a>
                </td>
                <td>
                  <span class="badge">{service.legacy ? "Legacy" : "Deleted"}</span>{" "}
                  <span class="badge">History only</span>
                </td>
                <td title={service.deletedAt ?? undefined}>
                  {service.deletedAt ? formatTime(service.deletedAt) : "—"}
                  {service.deletedBy && <span class="muted"> by {service.deletedBy}</span>}
                </td>
                <td class="mono url-cell" title={service.url}>
                  {service.url}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
    </section>
  );
}
