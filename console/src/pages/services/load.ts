// Reading whole lists the API pages: follows nextCursor up to a bound, so a page never loops forever.
import { api, cancelledBy, jsonOf, params } from "../../api/client";
import type { Service, Tool } from "./types";

/** At most this many pages of 200 per list (1000 services, 2000 tools). */
const MAX_PAGES = { services: 5, tools: 10 };

type PageOf<T> = { items: T[]; nextCursor: string | null };

async function allPages<T>(
  page: (cursor: { cursor?: string }) => Promise<PageOf<T>>,
  maxPages: number,
): Promise<{ items: T[]; more: boolean }> {
  const items: T[] = [];
  let cursor: string | null = null;
  for (let n = 0; n < maxPages; n++) {
    const answer: PageOf<T> = await page(cursor === null ? {} : { cursor });
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
  const workspace = api.v1.workspaces[":ws"];
  const cancel = cancelledBy(signal);
  const services = (deleted: "true" | "false") => (cursor: { cursor?: string }) =>
    jsonOf(
      workspace.services.$get({ ...params({ ws }), query: { limit: "200", deleted, ...cursor } }, cancel),
    );
  const [live, deleted, tools] = await Promise.all([
    allPages(services("false"), MAX_PAGES.services),
    allPages(services("true"), MAX_PAGES.services),
    allPages(
      (cursor) =>
        jsonOf(workspace.tools.$get({ ...params({ ws }), query: { limit: "200", ...cursor } }, cancel)),
      MAX_PAGES.tools,
    ),
  ]);
  return {
    live: live.items,
    deleted: deleted.items,
    tools: tools.items,
    truncated: live.more || deleted.more || tools.more,
  };
}
