// The workspace config's `pre_llm_hook` as the page edits it (target rows) and back, and where the
// API's errors[] pointers land on the page. Rules: shared/config/pre-llm-hook.ts, docs/request-hooks.md.
import type { InferResponseType } from "hono/client";
import type { api } from "../../api/client";

export type StoredConfig = InferResponseType<(typeof api.v1.workspaces)[":ws"]["config"]["$get"], 200>;
/** The stored document as GET …/config answers it (defaults filled); the page changes two keys. */
export type WorkspaceConfig = StoredConfig["config"];
export type PreLlmHook = NonNullable<WorkspaceConfig["pre_llm_hook"]>;

export interface HookForm {
  enabled: boolean;
  source: string;
  /** scope "all": every stream, the rows are not used. */
  allStreams: boolean;
  /** The first row: the main conversation (scope "main", or include_main beside named loops). */
  main: boolean;
  /** Further rows: named inner loops (scope "loops"). */
  loops: string[];
  /** Empty for the default. */
  timeout: string;
}

export function hookForm(hook: PreLlmHook | undefined): HookForm {
  if (!hook) return { enabled: false, source: "", allStreams: false, main: true, loops: [], timeout: "" };
  const timeout = hook.timeout_ms === undefined ? "" : String(hook.timeout_ms);
  if (hook.scope === "all")
    return { enabled: true, source: hook.source, allStreams: true, main: true, loops: [], timeout };
  if (hook.scope === "main")
    return { enabled: true, source: hook.source, allStreams: false, main: true, loops: [], timeout };
  return {
    enabled: true,
    source: hook.source,
    allStreams: false,
    main: hook.include_main === true,
    loops: hook.loops ?? [],
    timeout,
  };
}

/** The rows as the config's fields; a problem when no target is chosen (no scope says "nothing"). */
export function hookConfig(form: HookForm): { hook: PreLlmHook | undefined; problem: string | null } {
  if (!form.enabled) return { hook: undefined, problem: null };
  const timeout = form.timeout.trim() === "" ? {} : { timeout_ms: Number(form.timeout) };
  const source = form.source.trim();
  if (form.allStreams) return { hook: { source, scope: "all", ...timeout }, problem: null };
  if (form.loops.length > 0) {
    return {
      hook: {
        source,
        scope: "loops",
        loops: form.loops.map((l) => l.trim()),
        ...(form.main ? { include_main: true } : {}),
        ...timeout,
      },
      problem: null,
    };
  }
  if (!form.main) {
    return { hook: undefined, problem: "Choose a target: Main, a named loop, or All streams." };
  }
  return { hook: { source, scope: "main", ...timeout }, problem: null };
}

/** The document to PUT: the stored one with the page's two keys replaced (absent when unset). */
export function documentWith(
  config: WorkspaceConfig,
  hook: PreLlmHook | undefined,
  plugins: string[],
): WorkspaceConfig {
  const rest: WorkspaceConfig = { ...config };
  delete rest.pre_llm_hook;
  delete rest.plugins;
  return { ...rest, ...(hook ? { pre_llm_hook: hook } : {}), ...(plugins.length > 0 ? { plugins } : {}) };
}

/** Where an error pointer shows on the page. */
export type ErrorPlace =
  | { at: "source" | "targets" | "main" | "timeout" | "hook" | "plugins" }
  | { at: "loop"; index: number }
  | { at: "plugin"; index: number }
  | { at: "other" };

export function placeOf(pointer: string): ErrorPlace {
  const parts = pointer.split("/").slice(1);
  if (parts[0] === "plugins") {
    const index = Number(parts[1]);
    return parts[1] !== undefined && Number.isInteger(index) ? { at: "plugin", index } : { at: "plugins" };
  }
  if (parts[0] !== "pre_llm_hook") return { at: "other" };
  switch (parts[1]) {
    case "source":
      return { at: "source" };
    case "timeout_ms":
      return { at: "timeout" };
    case "include_main":
      return { at: "main" };
    case "scope":
      return { at: "targets" };
    case "loops": {
      const index = Number(parts[2]);
      return parts[2] !== undefined && Number.isInteger(index) ? { at: "loop", index } : { at: "targets" };
    }
    default:
      return { at: "hook" };
  }
}

/** A place's key in the messages map ("loop:2", "source", …). */
export const placeKey = (place: ErrorPlace) => ("index" in place ? `${place.at}:${place.index}` : place.at);

/** The order the runtime runs plugins in: listed names first (those that exist), then the rest by code point. */
export function unlistedInRunOrder(names: string[], listed: string[]): string[] {
  const taken = new Set(listed);
  return names.filter((name) => !taken.has(name)).toSorted((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
