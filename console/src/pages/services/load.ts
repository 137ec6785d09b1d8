// Reading whole lists the API pages: follows nextCursor up to a bound, so a page never loops forever.
import { api, wsPath } from "../../api/client";
import type { Page, Service, Tool } from "./types";

/** At most this many pages of 200 per list (1000 services, 2000 tools). */
const MAX_PAGES = { services: 5, tools: 10 };

async function allPages(
  path: string,
  maxPages: number,
  signal: AbortSignal,
): Promise<{ items: unknown[]; more: boolean }> {
  const items: unknown[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < maxPages; page++) {
    const separator = path.includes("?") ? "&" : "?";
    const url: string = `${path}${separator}limit=200${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`;
    const answer: Page<unknown> = await api.get<Page<unknown>>(url, signal);
    items.push(...answer.items);
    cursor = answer.nextCursor;
    if (cursor === null) return { items, more: false };
  }
  return { items, more: true };
}

export interface ServicesData {
  live: Service[];
  deleted: Service[];
  tools: Tool[];
  /** A list was longer than the page bound; the page says it shows the first part. */
  truncated: boolean;
}

export async function loadServices(ws: string, signal: AbortSignal): Promise<ServicesData> {
  const [live, deleted, tools] = await Promise.all([
    allPages(wsPath(ws, "services"), MAX_PAGES.services, signal),
    allPages(`${wsPath(ws, "services")}?deleted=true`, MAX_PAGES.services, signal),
    allPages(wsPath(ws, "tools"), MAX_PAGES.tools, signal),
  ]);
  return {
    live: live.items as Service[],
    deleted: deleted.items as Service[],
    tools: tools.items as Tool[],
    truncated: live.more || deleted.more || tools.more,
  };
}
