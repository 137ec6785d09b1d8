// Page state kept in the query string, so reload, back and shared links restore it.
import { useLocation } from "preact-iso";

export type QueryChanges = Record<string, string | null | undefined>;

export interface QueryState {
  query: Record<string, string>;
  /** The current path with `changes` applied to its query (null, undefined or "" removes a key). */
  href: (changes: QueryChanges) => string;
  /** Navigates to `href(changes)`; a new history entry unless `replace`. */
  set: (changes: QueryChanges, replace?: boolean) => void;
}

export function withQuery(path: string, query: Record<string, string>, changes: QueryChanges): string {
  const params = new URLSearchParams(query);
  for (const [key, value] of Object.entries(changes)) {
    if (value === null || value === undefined || value === "") params.delete(key);
    else params.set(key, value);
  }
  const search = params.toString();
  return search === "" ? path : `${path}?${search}`;
}

export function useQueryState(): QueryState {
  const { path, query, route } = useLocation();
  const href = (changes: QueryChanges) => withQuery(path, query, changes);
  return { query, href, set: (changes, replace = false) => route(href(changes), replace) };
}
