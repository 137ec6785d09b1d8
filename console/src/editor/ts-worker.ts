// The TypeScript language service for one editor, in a Web Worker (Comlink): a virtual file
// system with the bundled ES libs, the target's generated declarations as a global .d.ts, and
// the hook file itself. The methods mirror @valtown/codemirror-ts's worker shape so its
// facet, sync, completion and hover extensions drive it; they are implemented here against
// `typescript-browser` (TS 5.9) because the library's own helpers import the repo's
// `typescript` package, which is v7 and has no JS API.
import { createSystem, createVirtualTypeScriptEnvironment } from "@typescript/vfs";
import * as Comlink from "comlink";
import ts from "typescript-browser";
import { libFiles } from "./ts-libs";
import type { CompletionReply, HoverReply, LintReply, TsSetup } from "./ts-protocol";

const DECLARATIONS = "/rayrun-target.d.ts";

/**
 * The environment as TypeScript 5.9 types it: @typescript/vfs's declarations name the repo's
 * `typescript` (v7, types only for its version module), so its own types are not usable here.
 */
interface Env {
  languageService: ts.LanguageService;
  getSourceFile(path: string): ts.SourceFile | undefined;
  createFile(path: string, content: string): void;
  updateFile(path: string, content: string): void;
}

type VfsTs = Parameters<typeof createVirtualTypeScriptEnvironment>[2];

let env: Env | null = null;

function compilerOptions(setup: TsSetup): ts.CompilerOptions {
  return {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ["lib.es2023.d.ts"],
    strict: true,
    // lib and plugin sources are often plain JavaScript-style TypeScript (untyped parameters);
    // adapters get their parameter types from defineToolAdapter.
    noImplicitAny: setup.strict,
    allowJs: true,
    checkJs: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  };
}

const upsert = (path: string, code: string) => {
  if (env === null) return;
  // The language service rejects empty files in updateFile's diff; a single space keeps positions.
  if (env.getSourceFile(path)) env.updateFile(path, code.length === 0 ? " " : code);
  else env.createFile(path, code.length === 0 ? " " : code);
};

function message(text: string | ts.DiagnosticMessageChain): string {
  return ts.flattenDiagnosticMessageText(text, "\n");
}

function severity(d: ts.Diagnostic): LintReply["severity"] {
  if (d.code === 7027) return "warning";
  if (d.category === ts.DiagnosticCategory.Error) return "error";
  if (d.category === ts.DiagnosticCategory.Warning) return "warning";
  return "info";
}

const api = {
  initialize(setup: TsSetup): void {
    const fsMap = libFiles();
    fsMap.set(DECLARATIONS, setup.declarations || "export {};");
    fsMap.set(setup.path, setup.code || " ");
    const system = createSystem(fsMap);
    env = createVirtualTypeScriptEnvironment(
      system,
      [DECLARATIONS, setup.path],
      ts as unknown as VfsTs,
      compilerOptions(setup) as Parameters<typeof createVirtualTypeScriptEnvironment>[3],
    ) as unknown as Env;
  },

  /** The target's declarations arrived (or changed): later lints, completions and hovers use them. */
  setDeclarations(text: string): void {
    upsert(DECLARATIONS, text || "export {};");
  },

  updateFile({ path, code }: { path: string; code: string }): void {
    upsert(path, code);
  },

  getLints({
    path,
    diagnosticCodesToIgnore,
  }: {
    path: string;
    diagnosticCodesToIgnore: number[];
  }): LintReply[] {
    if (env === null || !env.getSourceFile(path)) return [];
    const all = [
      ...env.languageService.getSyntacticDiagnostics(path),
      ...env.languageService.getSemanticDiagnostics(path),
    ];
    return all
      .filter((d) => typeof d.start === "number" && typeof d.length === "number")
      .filter((d) => !diagnosticCodesToIgnore.includes(d.code))
      .map((d) => ({
        from: d.start ?? 0,
        to: (d.start ?? 0) + (d.length ?? 0),
        message: message(d.messageText),
        severity: severity(d),
        source: `ts(${d.code})`,
      }));
  },

  getAutocompletion({
    path,
    context,
  }: {
    path: string;
    context: { pos: number; explicit: boolean };
  }): CompletionReply | null {
    if (env === null) return null;
    const text = env.getSourceFile(path)?.getFullText() ?? "";
    const before = text.slice(0, context.pos);
    const word = /[\w$]*$/.exec(before)?.[0] ?? "";
    const afterDot = word === "" && before.endsWith(".");
    if (word === "" && !afterDot && !context.explicit) return null;
    const info = env.languageService.getCompletionsAtPosition(path, context.pos, {}, {});
    if (!info) return null;
    const options = info.entries
      .filter(
        (e) => e.kind !== ts.ScriptElementKind.warning && (e.sortText < "15" || info.isMemberCompletion),
      )
      .map((e) => ({
        label: e.name,
        type: completionType(e.kind),
        boost: -Number(e.sortText) || 0,
      }));
    return { from: context.pos - word.length, options };
  },

  getHover({ path, pos }: { path: string; pos: number }): HoverReply | null {
    if (env === null) return null;
    const info = env.languageService.getQuickInfoAtPosition(path, pos);
    if (!info) return null;
    return {
      start: info.textSpan.start,
      end: info.textSpan.start + info.textSpan.length,
      typeDef: null,
      quickInfo: {
        displayParts: info.displayParts ?? [],
        documentation: info.documentation ?? [],
        tags: info.tags,
      },
    };
  },
};

/** TypeScript's element kinds as CodeMirror's completion icon names. */
function completionType(kind: string): string | undefined {
  switch (kind) {
    case "property":
    case "getter":
    case "setter":
      return "property";
    case "method":
      return "method";
    case "function":
    case "local function":
      return "function";
    case "var":
    case "let":
    case "const":
    case "local var":
    case "parameter":
      return "variable";
    case "class":
      return "class";
    case "interface":
      return "interface";
    case "type":
    case "alias":
      return "type";
    case "enum":
      return "enum";
    case "keyword":
      return "keyword";
    case "module":
      return "namespace";
    default:
      return undefined;
  }
}

export type TsWorkerApi = typeof api;

Comlink.expose(api);
