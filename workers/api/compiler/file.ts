// compileWorkspaceFile: a workspace file →
// the compiled script and the names callers address, or diagnostics. Same
// pipeline, import ban, size limits and target as tool adapters; what differs
// is the module's shape:
//   lib/…      named exports; the exported functions are recorded
//   plugins/…  only a default export, an object keyed by hook name
import { sha256Hex } from "../../../shared/canonical-json";
import { isPluginHook, PLUGIN_HOOKS } from "../../../shared/files/exports";
import type { FileKind, WorkspaceFile } from "../../../shared/files/paths";
import type { JsonObject } from "../../../shared/json";
import { err, ok, type Result } from "../../../shared/result";
import { inspectModule, type ModuleShape } from "../../../shared/sandbox";
import type { SandboxError } from "../../../shared/sandbox/types";
import { buildModule, withConfig } from "./build";
import type { BundleMode } from "./bundle";
import { diagnostic, locate, START, type Diagnostic, type Position } from "./diagnostics";

export interface CompiledFile {
  code: string;
  compiledBytes: number;
  /** SHA-256 hex of `code`: the content address of a revision. */
  hash: string;
  config: JsonObject;
  kind: FileKind;
  /** lib: the exported functions, sorted by name; plugin: its hooks, in PLUGIN_HOOKS order. */
  exports: string[];
}

export interface FileCompileDependencies {
  /** Evaluates compiled code once and reads its exports (the sandbox; replaceable in tests). */
  inspect(code: string): Promise<Result<ModuleShape, SandboxError>>;
}

const defaults: FileCompileDependencies = { inspect: inspectModule };

const HOOK_LIST = PLUGIN_HOOKS.join(", ");
const DEFAULT_EXPORT = /^[ \t]*export[ \t]+default\b/m;
const NAMED_EXPORT = /^[ \t]*export\b(?![ \t]+(?:default|type|interface|declare)\b)/m;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** Where a member of the default export is written (best effort: first `key:` or `key(`). */
const memberAt = (source: string, key: string): Position =>
  locate(source, new RegExp(`["']?${escapeRegExp(key)}["']?\\s*[:(]`)) ??
  locate(source, DEFAULT_EXPORT) ??
  START;

function checkLibExports(source: string, exports: string[]): Diagnostic[] {
  if (exports.includes("default")) {
    return [
      diagnostic(
        "export_not_allowed",
        "lib files use named exports (`export function main(input) { … }`); a default export cannot be called",
        locate(source, DEFAULT_EXPORT),
      ),
    ];
  }
  if (exports.length === 0) {
    return [
      diagnostic(
        "missing_export",
        "a lib file must export a function, e.g. `export function main(input) { … }`",
      ),
    ];
  }
  return [];
}

function checkPluginExports(source: string, exports: string[]): Diagnostic[] {
  const problems: Diagnostic[] = [];
  const named = exports.filter((name) => name !== "default");
  if (named.length > 0) {
    problems.push(
      diagnostic(
        "export_not_allowed",
        `a plugin file only has a default export; remove the export of ${named.map((n) => `"${n}"`).join(", ")}`,
        locate(source, NAMED_EXPORT),
      ),
    );
  }
  if (!exports.includes("default")) {
    problems.push(
      diagnostic(
        "missing_export",
        `a plugin file must \`export default { … }\` an object keyed by hook name (${HOOK_LIST})`,
      ),
    );
  }
  return problems;
}

export const fileBundleMode = (file: WorkspaceFile): BundleMode => ({
  what: "workspace files",
  loader: file.language,
  sourcefile: file.path,
  checkExports: file.kind === "lib" ? checkLibExports : checkPluginExports,
});

function libFunctions(shape: ModuleShape, source: string): Result<string[], Diagnostic[]> {
  const functions = shape.named
    .filter((e) => e.type === "function")
    .map((e) => e.name)
    .toSorted();
  if (functions.length > 0) return ok(functions);
  const found = shape.named.map((e) => `${e.name} (${e.type})`).join(", ");
  return err([
    diagnostic(
      "missing_export",
      `a lib file must export at least one function; it exports ${found === "" ? "nothing" : found}`,
      locate(source, NAMED_EXPORT),
    ),
  ]);
}

function pluginHooks(shape: ModuleShape, source: string): Result<string[], Diagnostic[]> {
  const exported = shape.default;
  const at = locate(source, DEFAULT_EXPORT);
  if (exported === null || !exported.plainObject) {
    const found =
      exported === null ? "nothing" : `a ${exported.type === "object" ? "class instance" : exported.type}`;
    return err([
      diagnostic(
        "invalid_plugin",
        `the default export must be an object literal keyed by hook name (${HOOK_LIST}); found ${found}`,
        at,
      ),
    ]);
  }
  const problems: Diagnostic[] = [];
  for (const { key, type } of exported.members) {
    if (key === null) {
      problems.push(
        diagnostic("unknown_plugin_hook", "a plugin's hooks are named by strings, not symbols", at),
      );
    } else if (!isPluginHook(key)) {
      problems.push(
        diagnostic(
          "unknown_plugin_hook",
          `unknown hook ${JSON.stringify(key)}; a plugin may define ${HOOK_LIST}`,
          memberAt(source, key),
        ),
      );
    } else if (type !== "function") {
      const found = type === "accessor" ? "a getter" : type;
      problems.push(
        diagnostic(
          "invalid_plugin_hook",
          `hook "${key}" must be a function (found ${found})`,
          memberAt(source, key),
        ),
      );
    }
  }
  if (problems.length > 0) return err(problems);
  const defined = new Set(exported.members.map((m) => m.key));
  const hooks = PLUGIN_HOOKS.filter((hook) => defined.has(hook));
  if (hooks.length === 0) {
    return err([
      diagnostic("missing_plugin_hook", `the plugin defines no hook; define one of ${HOOK_LIST}`, at),
    ]);
  }
  return ok(hooks);
}

/** Evaluating the top level failed (a throw, a timeout) or the sandbox refused the module's shape. */
function evaluationProblem(error: SandboxError): Diagnostic {
  if (error.code === "hook_invalid_module") return diagnostic("invalid_module", error.message);
  return diagnostic("evaluation_failed", `evaluating the module failed (${error.code}): ${error.message}`);
}

export async function compileWorkspaceFile(
  input: { file: WorkspaceFile; source: string; config?: unknown },
  dependencies: FileCompileDependencies = defaults,
): Promise<Result<CompiledFile, Diagnostic[]>> {
  const { file, source } = input;
  const { config, bundle } = await buildModule(input, fileBundleMode(file));
  if (!bundle.ok) return withConfig(config, bundle.error);
  const { code, compiledBytes } = bundle.value;

  const inspected = await dependencies.inspect(code);
  if (!inspected.ok) return withConfig(config, [evaluationProblem(inspected.error)]);
  const names =
    file.kind === "lib" ? libFunctions(inspected.value, source) : pluginHooks(inspected.value, source);
  if (!names.ok) return withConfig(config, names.error);
  if (!config.ok) return err(config.error);

  return ok({
    code,
    compiledBytes,
    hash: await sha256Hex(code),
    config: config.value,
    kind: file.kind,
    exports: names.value,
  });
}
