// Query-string state of the hook pages (?view=, ?diff=, ?against=, ?stage=): every view is a URL,
// so reload and back work.

/** `url` with `changes` applied to its query; null removes a parameter. */
export function withQuery(url: string, changes: Record<string, string | null>): string {
  const parsed = new URL(url, location.origin);
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) parsed.searchParams.delete(key);
    else parsed.searchParams.set(key, value);
  }
  const search = parsed.searchParams.toString();
  return `${parsed.pathname}${search ? `?${search}` : ""}`;
}
