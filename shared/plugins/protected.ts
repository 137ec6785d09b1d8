// Tool ids a plugin may not register: their `execute` carries a security gate.
// The workspace's indexed upstream tools are protected too: their execution
// carries the gateway's gate.

/** The protected ids plugins document; every `browser_*` id is protected as a family. */
export const PROTECTED_TOOL_IDS: readonly string[] = ["read", "write", "edit", "bash", "webfetch", "task"];
/** Prefix of the protected `browser_*` family. */
export const PROTECTED_TOOL_PREFIX = "browser_";

/** Whether `id` is one of the protected ids (not counting the workspace's indexed tools). */
export function isProtectedToolId(id: string): boolean {
  return PROTECTED_TOOL_IDS.includes(id) || id.startsWith(PROTECTED_TOOL_PREFIX);
}

/** Whether `id` may not be registered by a plugin of a workspace with these indexed tool names. */
export function refusedToolId(id: string, indexed: ReadonlySet<string>): boolean {
  return isProtectedToolId(id) || indexed.has(id);
}
