// Assembles the prelude: one script whose value is a function of the host
// bridge. It runs in every fresh context before hook code and returns the
// `api` object only the host holds (nothing of it is reachable from globals).
import { ADAPTER_JS } from "./adapter";
import { BRIDGE_JS } from "./bridge";
import { BUILTINS_JS } from "./builtins";
import { CAPTURE_JS } from "./capture";
import { FUEL_JS } from "./fuel";
import { HARDEN_JS } from "./harden";
import { PLAIN_JS } from "./plain";

export interface PreludeExtension {
  /** Stable name, for error messages and caching. */
  name: string;
  /** JS statements run inside the prelude closure after the core parts. */
  source: string;
}

export const adapterExtension: PreludeExtension = { name: "adapter", source: ADAPTER_JS };

/**
 * Drops comment lines, trailing `; // …` comments and indentation: the
 * prelude is parsed in every fresh context, and parse time grows with its
 * size. (The prelude sources never contain "//" inside strings.)
 */
function compact(source: string): string {
  return source
    .split("\n")
    .map((line) => line.trim().replace(/;\s+\/\/ .*$/, ";"))
    .filter((line) => line !== "" && !line.startsWith("//"))
    .join("\n");
}

export function buildPrelude(extensions: readonly PreludeExtension[]): string {
  const parts = [CAPTURE_JS, FUEL_JS, HARDEN_JS, BUILTINS_JS, PLAIN_JS, BRIDGE_JS];
  for (const extension of extensions) parts.push(`{\n${extension.source}\n}`);
  return compact(`(function (host) {\n"use strict";\n${parts.join("\n")}\nreturn api;\n})`);
}
