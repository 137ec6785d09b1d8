// What a hook page edits: a tool's adapter or a workspace file. The views are built once and
// differ only where the API does (the test console, declarations, revision compatibility).
import { fileTypesApi, toolConsoleApi, wsPath } from "../../api/client";
import type { Tool } from "./types";

export interface ToolTarget {
  kind: "tool";
  tool: Tool;
}

export interface FileTarget {
  kind: "file";
  fileKind: "lib" | "plugin";
  path: string;
}

export type HookTarget = (ToolTarget | FileTarget) & {
  ws: string;
  /** The lifecycle routes' base: `…/tools/{tool}/hook` or `…/files/{path}`. */
  base: string;
  /** The generated declarations for the editor. */
  types: () => Promise<{ text(): Promise<string> }>;
  /** What a person types to confirm a reset, and how the page names the target. */
  name: string;
  /** localStorage key of unsaved edits. */
  storageKey: string;
  language: "ts" | "js";
  /** What the editor starts with before the first save. */
  starter: string;
};

const TOOL_STARTER = `export default defineToolAdapter({
  apiVersion: "rayrun.hooks/v1",

  before({ arguments: args, context }) {
    context.log.info("before", { args });
    return { action: "continue", arguments: args };
  },

  after({ result }) {
    return { action: "return", result };
  },
});
`;

const LIB_STARTER = `// A request hook: receives { request, loop } and returns the complete request.
export function transform({ request }) {
  return request;
}
`;

const PLUGIN_STARTER = `// A plugin: its default export maps hook names to functions.
export default {
  "tool.execute.after": (input) => {
    return undefined; // no change
  },
};
`;

export function toolTarget(ws: string, tool: Tool): HookTarget {
  const base = wsPath(ws, "tools", tool.uid, "hook");
  return {
    kind: "tool",
    tool,
    ws,
    base,
    types: () => toolConsoleApi(base).types.$get(),
    name: tool.name ?? tool.upstreamName,
    storageKey: `rayrun:unsaved:${ws}:tool:${tool.uid}`,
    language: "ts",
    starter: TOOL_STARTER,
  };
}

export function fileTarget(ws: string, path: string): HookTarget {
  const base = wsPath(ws, "files", path);
  const fileKind = path.startsWith("plugins/") ? "plugin" : "lib";
  return {
    kind: "file",
    fileKind,
    path,
    ws,
    base,
    types: () => fileTypesApi(base).types.$get(),
    name: path,
    storageKey: `rayrun:unsaved:${ws}:file:${path}`,
    language: path.endsWith(".js") ? "js" : "ts",
    starter: fileKind === "plugin" ? PLUGIN_STARTER : LIB_STARTER,
  };
}
