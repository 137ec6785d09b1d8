// Which functions (lib) or hooks (plugin) a version of a workspace file offers, so the test console
// offers only those and never starts on one the version lacks (the API refuses such a run). The
// compiler's list is the authority: a deployed revision carries it, and so do the editor's Compile
// and a run refused for naming a missing one. Until one of those is known for a version, its source
// is read for a first guess, which costs no compilation.
import { PLUGIN_HOOKS } from "../../../../shared/files/exports";
import type { HookStore } from "./store";

/** The compiler's list for `version`, when a revision, a compile or a refusal has told it. */
export function compiledExports(store: HookStore, version: number): string[] | null {
  for (const revision of store.revisions.value ?? []) {
    if (revision.version === version && "exports" in revision) return revision.exports;
  }
  return store.learnedExports.value.get(version) ?? null;
}

const IDENTIFIER = /[A-Za-z_$][\w$]*/y;
const SPACE = /(?:\s|\/\/[^\n]*|\/\*[\s\S]*?\*\/)*/y;

/** The end of the string or template literal starting at `start` (its quote). */
function skipString(source: string, start: number): number {
  const quote = source[start];
  let i = start + 1;
  while (i < source.length && source[i] !== quote) i += source[i] === "\\" ? 2 : 1;
  return i + 1;
}

function skipSpace(source: string, at: number): number {
  SPACE.lastIndex = at;
  SPACE.exec(source);
  return SPACE.lastIndex;
}

/** A key at `at`: an identifier or a quoted string, and where it ends. */
function keyAt(source: string, at: number): { key: string; end: number } | null {
  const c = source[at];
  if (c === '"' || c === "'") {
    const end = skipString(source, at);
    return { key: source.slice(at + 1, end - 1), end };
  }
  IDENTIFIER.lastIndex = at;
  const match = IDENTIFIER.exec(source);
  return match ? { key: match[0], end: IDENTIFIER.lastIndex } : null;
}

/**
 * The keys of the object literal `export default { … }` defines: at its top level, a key follows
 * `{` or `,` and is followed by `:` or by `(` (a method). Null when the default export is not an
 * object literal written there.
 */
function defaultObjectKeys(source: string): string[] | null {
  const exported = /export\s+default\s*/.exec(source);
  if (!exported) return null;
  let i = exported.index + exported[0].length;
  if (source[i] !== "{") return null;
  const keys: string[] = [];
  let depth = 0;
  let expectKey = false;
  while (i < source.length) {
    const c = source[i] ?? "";
    if (depth === 1 && expectKey) {
      i = skipSpace(source, i);
      let found = keyAt(source, i);
      if (found?.key === "async") found = keyAt(source, skipSpace(source, found.end)) ?? found;
      expectKey = false;
      if (found) {
        const next = source[skipSpace(source, found.end)];
        if (next === ":" || next === "(") keys.push(found.key);
      }
      continue;
    }
    if (c === '"' || c === "'" || c === "`") {
      i = skipString(source, i);
      continue;
    }
    if (c === "/" && (source[i + 1] === "/" || source[i + 1] === "*")) {
      i = skipSpace(source, i);
      continue;
    }
    if (c === "{" || c === "(" || c === "[") {
      depth += 1;
      if (depth === 1) expectKey = true;
    } else if (c === "}" || c === ")" || c === "]") {
      depth -= 1;
      if (depth === 0) return keys;
    } else if (c === "," && depth === 1) expectKey = true;
    i += 1;
  }
  return keys;
}

const LIB_FUNCTION =
  /export\s+(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)|export\s+(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:async\s+)?(?:function\b|\(|[A-Za-z_$][\w$]*\s*=>)/g;

/**
 * A first guess from the source: a plugin's hooks in the compiler's order, a lib file's exported
 * functions sorted as the compiler sorts them. Null when the source does not show them plainly.
 */
export function exportsInSource(source: string, kind: "lib" | "plugin"): string[] | null {
  if (kind === "plugin") {
    const keys = defaultObjectKeys(source);
    if (keys === null) return null;
    const hooks = PLUGIN_HOOKS.filter((hook) => keys.includes(hook));
    return hooks.length > 0 ? hooks : null;
  }
  const names = new Set<string>();
  for (const match of source.matchAll(LIB_FUNCTION)) names.add(match[1] ?? match[2] ?? "");
  names.delete("");
  return names.size > 0 ? [...names].toSorted() : null;
}
