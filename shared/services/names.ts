// Public tool names: a tool is called by its upstream name unless
// another live service of the workspace exposes the same name; then every
// holder of that name is called `{service}__{tool}`.

/** Separator between a service name and a tool name in a prefixed public name. */
export const NAME_SEPARATOR = "__";

/**
 * Service names: lower-case letters, digits, `-` and single `_`, not ending in `_`.
 * With no `__` inside and no trailing `_`, the first `__` of a prefixed name is
 * always the separator, so two (service, tool) pairs never share a prefixed name.
 */
export const SERVICE_NAME_PATTERN = /^[a-z0-9](?:[a-z0-9-]|_(?=[a-z0-9-]))*$/;
export const SERVICE_NAME_MAX = 64;

export interface NamedTool {
  uid: string;
  serviceName: string;
  upstreamName: string;
}

/**
 * Public name of each exposed tool of one workspace, keyed by tool uid. Pass only
 * tools that clients can see (present upstream, service not deleted).
 *
 * Shared upstream names are prefixed. A prefixed name can still equal another
 * tool's plain upstream name (a tool literally named `docs__search`); that tool
 * is prefixed too, until no two tools share a name.
 */
export function publicToolNames(tools: readonly NamedTool[]): Map<string, string> {
  const holders = new Map<string, number>();
  for (const tool of tools) holders.set(tool.upstreamName, (holders.get(tool.upstreamName) ?? 0) + 1);

  const prefixed = new Set<string>();
  for (const tool of tools) if ((holders.get(tool.upstreamName) ?? 0) > 1) prefixed.add(tool.uid);

  const prefixedName = (tool: NamedTool) => `${tool.serviceName}${NAME_SEPARATOR}${tool.upstreamName}`;
  // Each pass prefixes at least one more tool or stops, so this ends.
  for (;;) {
    const taken = new Set(tools.filter((t) => prefixed.has(t.uid)).map(prefixedName));
    const clashing = tools.filter((t) => !prefixed.has(t.uid) && taken.has(t.upstreamName));
    if (clashing.length === 0) break;
    for (const tool of clashing) prefixed.add(tool.uid);
  }

  return new Map(tools.map((t) => [t.uid, prefixed.has(t.uid) ? prefixedName(t) : t.upstreamName]));
}
