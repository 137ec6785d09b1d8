// Source → the one script the sandbox evaluates. Two esbuild passes over the
// same source, so every diagnostic points into what the author wrote:
//   1. an ESM bundle that resolves nothing (every import is an error with its
//      position) and whose metafile lists the module's exports;
//   2. the final IIFE, `globalThis.__rayrunModule` being the module's exports
//      (`.default` the adapter; a lib file's named functions; a plugin's
//      default-exported object), lowered to a target QuickJS runs.
// Tool adapters and workspace files differ only in the BundleMode.
import type { BuildFailure, BuildOptions, Message, Plugin } from "esbuild-wasm";
import { err, ok, type Result } from "../../../shared/result";
import { diagnostic, esbuildPosition, locate, type Diagnostic, type DiagnosticCode } from "./diagnostics";
import { loadEsbuild } from "./esbuild";

/** The global the sandbox reads the module from. */
export const MODULE_GLOBAL = "__rayrunModule";

/**
 * es2017 rather than the es2020 QuickJS supports: it rewrites object spread and
 * rest into per-property loops, which the sandbox's fuel counter sees as steps
 * (a native spread over many properties is one unbounded step).
 */
const TARGET = "es2017";

/** What is being bundled: names in messages, the loader, and which exports the module may have. */
export interface BundleMode {
  /** Plural noun for messages: "tool adapters", "workspace files". */
  what: string;
  loader: "ts" | "js";
  sourcefile: string;
  /** Problems with the export names esbuild found (no positions in the metafile). */
  checkExports(source: string, exports: string[]): Diagnostic[];
}

const NO_IMPORTS = "rayrun-no-imports";

// No file system and no packages exist for a hook: any resolution is refused.
const refuseImports = (what: string): Plugin => ({
  name: NO_IMPORTS,
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) => ({
      errors: [{ text: `"${args.path}" cannot be imported: ${what} cannot import modules` }],
    }));
  },
});

const shared = (source: string, mode: BundleMode): BuildOptions => ({
  stdin: { contents: source, loader: mode.loader, sourcefile: mode.sourcefile },
  bundle: true,
  write: false,
  outdir: "out",
  platform: "neutral",
  logLevel: "silent",
  plugins: [refuseImports(mode.what)],
  // Keep imports whose bindings are unused, so they are refused instead of silently dropped.
  tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } },
});

/** esbuild notes these at debug level; a hook must not contain them at all. */
const IMPORT_MESSAGE_IDS = ["unsupported-require-call", "unsupported-dynamic-import", "indirect-require"];

const isBuildFailure = (error: unknown): error is BuildFailure =>
  error instanceof Error && Array.isArray((error as Partial<BuildFailure>).errors);

function toDiagnostics(messages: Message[], fallback: DiagnosticCode, what: string): Diagnostic[] {
  return messages.map((message) => {
    const importRelated = message.pluginName === NO_IMPORTS || IMPORT_MESSAGE_IDS.includes(message.id);
    const text = IMPORT_MESSAGE_IDS.includes(message.id)
      ? `${message.text}: ${what} cannot import or require modules`
      : message.text;
    return diagnostic(importRelated ? "import_not_allowed" : fallback, text, esbuildPosition(message));
  });
}

/** The compiled script, or the diagnostics that prevent it. */
export async function bundleModule(source: string, mode: BundleMode): Promise<Result<string, Diagnostic[]>> {
  const esbuild = await loadEsbuild();

  let exports: string[];
  try {
    const checked = await esbuild.build({
      ...shared(source, mode),
      format: "esm",
      target: "esnext",
      metafile: true,
      logOverride: Object.fromEntries(IMPORT_MESSAGE_IDS.map((id) => [id, "error"])),
    });
    exports = Object.values(checked.metafile.outputs)[0]?.exports ?? [];
  } catch (error) {
    if (isBuildFailure(error)) return err(toDiagnostics(error.errors, "syntax_error", mode.what));
    throw error;
  }
  const exportProblems = mode.checkExports(source, exports);
  if (exportProblems.length > 0) return err(exportProblems);

  try {
    const built = await esbuild.build({
      ...shared(source, mode),
      format: "iife",
      globalName: MODULE_GLOBAL,
      target: TARGET,
      // The sandbox removes BigInt; say so now rather than at run time.
      logOverride: { bigint: "error" },
    });
    const code = built.outputFiles?.[0]?.text;
    if (code === undefined) throw new Error("esbuild produced no output");
    return ok(code);
  } catch (error) {
    if (isBuildFailure(error)) return err(toDiagnostics(error.errors, "unsupported_syntax", mode.what));
    throw error;
  }
}

/** A tool adapter: `export default defineToolAdapter({ … })` and nothing else. */
export const ADAPTER_MODE: BundleMode = {
  what: "tool adapters",
  loader: "ts",
  sourcefile: "hook.ts",
  checkExports: checkAdapterExports,
};

function checkAdapterExports(source: string, exports: string[]): Diagnostic[] {
  const problems: Diagnostic[] = [];
  const named = exports.filter((name) => name !== "default");
  if (named.length > 0) {
    // The metafile has no positions; the first non-default `export` is almost always the one.
    const at = locate(source, /^[ \t]*export\b(?![ \t]+(?:default|type|interface|declare)\b)/m);
    problems.push(
      diagnostic(
        "export_not_allowed",
        `only a default export is allowed; remove the export of ${named.map((n) => `"${n}"`).join(", ")}`,
        at,
      ),
    );
  }
  if (!exports.includes("default")) {
    problems.push(
      diagnostic("invalid_module", "the module must end with `export default defineToolAdapter({ … })`"),
    );
  }
  return problems;
}
