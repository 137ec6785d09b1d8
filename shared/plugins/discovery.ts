// Which plugins run, and in what order:
// the names the workspace config's `plugins` list gives first, in list order,
// then every other plugin file with an active deployment, alphabetically by
// name. A plugin's name is its file name without folder and extension
// (`plugins/redact.ts` → `redact`).
//
// The pointers come from the caller's lease on the workspace's view (every
// plugin target's pointers are in it); revisions are immutable, so their code
// and hook names come from the isolate's revision cache (`loadFileRevision`,
// keyed by revision id).
import type { WorkspaceConfig } from "../config/schema";
import { loadFileRevision } from "../deploy/deployed-file";
import { parseFilePath } from "../files/paths";
import type { Pointers } from "../lifecycle/pointers";

export interface DeployedPlugin {
  /** `redact` for `plugins/redact.ts`. */
  name: string;
  path: string;
  revisionId: string;
  /** Compiled script for the sandbox. */
  code: string;
  /** The hooks its default export defines (`chat.params`, `tool.execute.before`, …), as compiled. */
  hooks: string[];
}

/** The plugins that define `hook`, in pipeline order. */
export const withHook = (plugins: readonly DeployedPlugin[], hook: string): DeployedPlugin[] =>
  plugins.filter((p) => p.hooks.includes(hook));

const TARGET_PREFIX = "file:plugins/";

/** Every plugin with an active deployment among `pointers` (every target's, by target), in pipeline order. */
export async function activePlugins(
  env: Pick<Env, "DB" | "CODE">,
  workspaceUid: string,
  config: WorkspaceConfig,
  pointers: Readonly<Record<string, Pointers>>,
): Promise<DeployedPlugin[]> {
  const active: { path: string; name: string; revisionId: string }[] = [];
  for (const [target, { active: pointer }] of Object.entries(pointers)) {
    if (pointer === null || !target.startsWith(TARGET_PREFIX)) continue;
    const path = target.slice("file:".length);
    const parsed = parseFilePath(path);
    if (!parsed.ok || parsed.value.kind !== "plugin") continue;
    active.push({ path, name: parsed.value.name, revisionId: pointer.revisionId });
  }
  const loaded = await Promise.all(
    active.map(async ({ path, name, revisionId }) => {
      const file = await loadFileRevision(env, workspaceUid, path, revisionId);
      // A revision removed under us (a reset racing this read) is no plugin.
      return file === null
        ? null
        : { name, path, revisionId: file.revisionId, code: file.code, hooks: [...file.exports] };
    }),
  );
  return orderPlugins(
    loaded.filter((plugin): plugin is DeployedPlugin => plugin !== null),
    config.plugins ?? [],
  );
}

/**
 * Listed names first, in list order (a listed name with no active plugin is
 * skipped), then the rest alphabetically by name (code-point order, so the
 * order never depends on a locale).
 */
export function orderPlugins<P extends { name: string }>(
  plugins: readonly P[],
  listed: readonly string[],
): P[] {
  const byName = new Map(plugins.map((plugin) => [plugin.name, plugin]));
  const ordered: P[] = [];
  const taken = new Set<string>();
  for (const name of listed) {
    const plugin = byName.get(name);
    if (plugin === undefined || taken.has(name)) continue;
    ordered.push(plugin);
    taken.add(name);
  }
  const rest = plugins
    .filter((plugin) => !taken.has(plugin.name))
    .toSorted((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return [...ordered, ...rest];
}
