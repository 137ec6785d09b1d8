// What a workspace file offers to callers: a lib file's exported functions
// (`source: "lib/x.ts:transform"`, default `main`), a plugin's hooks
// (the keys of its default-exported object). The compiler records
// these names with each revision; runners address a function by its export path.
import type { FileKind } from "./paths";

/** The four hooks a plugin may define, in the order the product documents them. */
export const PLUGIN_HOOKS = ["tool", "chat.params", "tool.execute.before", "tool.execute.after"] as const;
export type PluginHook = (typeof PLUGIN_HOOKS)[number];

export const isPluginHook = (name: string): name is PluginHook =>
  (PLUGIN_HOOKS as readonly string[]).includes(name);

/** The function a `lib/x.ts` reference without `:name` calls. */
export const DEFAULT_LIB_EXPORT = "main";

/**
 * Where the sandbox finds the function: a lib function is a named export, a
 * plugin hook a member of the default export.
 */
export const exportPath = (kind: FileKind, name: string): readonly string[] =>
  kind === "lib" ? [name] : ["default", name];
