// Assembles the prelude: one script whose value is a function of the host
// bridge. It runs in every fresh context before hook code and returns the
// `api` object only the host holds (nothing of it is reachable from globals).
//
// The prelude is sandbox JS, kept in the *.js files of this folder (linted,
// formatted and, under `// @ts-check`, type-checked by ./tsconfig.json with
// ./sandbox-globals.d.ts). They are not modules of the Workers: each is a part
// of the prelude function's body, imported here as its source text with a
// `?raw` import. `?raw` is the one spelling every loader of this code can be
// given the same meaning ("the file's text, as the default export"):
//  - vitest (@cloudflare/vitest-plugin) goes through Vite, which has `?raw`
//    built in (the pool leaves specifiers with a query to Vite);
//  - wrangler's esbuild honours the `Text` module rule `**/*.js?raw` in both
//    Workers' wrangler.toml and dev/sandbox-bench/wrangler.jsonc (rules match the
//    specifier as written, query included);
//  - Node (the tsx benches) gets it from bench/raw-import.mjs, a loader hook
//    the bench scripts pass with `--import`;
//  - TypeScript types it from ./raw-import.d.ts (in tsconfig.json and bench/tsconfig.json).
// The import attribute `with { type: "text" }` was the other candidate: esbuild
// has it built in, but Vite and Node do not, and TypeScript would resolve such
// an import to the JS file itself rather than to a string.
import ADAPTER_JS from "./adapter.js?raw";
import BRIDGE_JS from "./bridge.js?raw";
import BUILTINS_JS from "./builtins.js?raw";
import CAPTURE_JS from "./capture.js?raw";
import FUEL_JS from "./fuel.js?raw";
import HARDEN_JS from "./harden.js?raw";
import MODULE_EXPORTS_JS from "./module-exports.js?raw";
import PLAIN_JS from "./plain.js?raw";
import PLUGIN_CHAT_PARAMS_JS from "./plugin-chat-params.js?raw";
import PLUGIN_TOOL_DEFS_JS from "./plugin-tool-defs.js?raw";
import PLUGIN_TOOL_EXECUTE_JS from "./plugin-tool-execute.js?raw";
import REGEXP_SPLIT_JS from "./regexp-split.js?raw";
import REQUEST_HOOK_JSON_RETURN_JS from "./request-hook-json-return.js?raw";
import REQUEST_HOOK_NAMESPACE_JS from "./request-hook-namespace.js?raw";

export interface PreludeExtension {
  /** Stable name, for error messages and caching. */
  name: string;
  /** JS statements run inside the prelude closure after the core parts. */
  source: string;
}

/**
 * Replaces the line `// @insert <file>` of `source` with `part`: how one part
 * runs at a given point inside another (a line comment, so the host part stays
 * valid JS on its own). Throws unless the marker is there exactly once.
 */
function insertPart(source: string, file: string, part: string): string {
  const marker = `\n// @insert ${file}\n`;
  const at = source.indexOf(marker);
  if (at < 0 || source.indexOf(marker, at + 1) >= 0) {
    throw new Error(`the prelude has no single "// @insert ${file}" line`);
  }
  return `${source.slice(0, at)}\n${part}\n${source.slice(at + marker.length)}`;
}

/**
 * How a host value reaches a part's JS: `const NAME = <JSON>;` lines put ahead
 * of its text (an extension runs as a block, so they stay its own). The JS uses
 * NAME as an ordinary identifier, declared for the checker in
 * sandbox-globals.d.ts, so the file stays plain JS with nothing to substitute.
 */
export function definePreludeConstants(
  constants: Readonly<Record<string, string | number | boolean | readonly string[]>>,
  source: string,
): string {
  const lines = Object.entries(constants).map(([name, value]) => `const ${name} = ${JSON.stringify(value)};`);
  return `${lines.join("\n")}\n${source}`;
}

// The fast RegExp split runs inside the built-ins part, right after the metered exec.
const BUILTINS_WITH_SPLIT_JS = insertPart(BUILTINS_JS, "regexp-split.js", REGEXP_SPLIT_JS);

/**
 * Extension texts: each hook kind's owner makes its PreludeExtension (../adapter.ts,
 * ../module-exports.ts, shared/llm/hook-extensions.ts, shared/plugins), and the
 * core parts above stay what every hook kind needs.
 */
export {
  ADAPTER_JS,
  MODULE_EXPORTS_JS,
  PLUGIN_CHAT_PARAMS_JS,
  PLUGIN_TOOL_DEFS_JS,
  PLUGIN_TOOL_EXECUTE_JS,
  REQUEST_HOOK_JSON_RETURN_JS,
  REQUEST_HOOK_NAMESPACE_JS,
};

/**
 * Drops comment lines (line comments, and block comments that start a line,
 * such as the checker's JSDoc types), trailing `; // …` comments and
 * indentation: the prelude is parsed in every fresh context, and parse time
 * grows with its size. (The prelude sources never contain "//" inside strings,
 * and a block comment that starts a line also ends one: refused otherwise.)
 */
function compact(source: string): string {
  const kept: string[] = [];
  let inComment = false;
  for (const raw of source.split("\n")) {
    const line = raw.trim();
    if (inComment || line.startsWith("/*")) {
      const end = line.indexOf("*/");
      if (end >= 0 && end !== line.length - 2) throw new Error(`prelude: code after a comment: ${line}`);
      inComment = end < 0;
      continue;
    }
    const code = line.replace(/;\s+\/\/ .*$/, ";");
    if (code !== "" && !code.startsWith("//")) kept.push(code);
  }
  if (inComment) throw new Error("the prelude has an unterminated block comment");
  return kept.join("\n");
}

export function buildPrelude(extensions: readonly PreludeExtension[]): string {
  const parts = [CAPTURE_JS, FUEL_JS, HARDEN_JS, BUILTINS_WITH_SPLIT_JS, PLAIN_JS, BRIDGE_JS];
  for (const extension of extensions) parts.push(`{\n${extension.source}\n}`);
  return compact(`(function (host) {\n"use strict";\n${parts.join("\n")}\nreturn api;\n})`);
}
