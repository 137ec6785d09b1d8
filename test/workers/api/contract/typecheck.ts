// Type-checks workspace files against served declarations with the
// TypeScript compiler (5.9, the `typescript-browser` alias: the repo's own
// `typescript` has no JS API), the way the editor does: the declarations as
// a global `.d.ts`, the files as modules beside it, the sandbox's library
// (ES2024, no DOM, no Node). Node-side only (the compiler reads its lib files
// from disk): see file-types.node.test.ts.
import ts from "typescript-browser";

/** The repository root, as a path ending in `/`. */
export const REPO = new URL("../../../../", import.meta.url).pathname;
/** Where the checked files live (virtual): `lib/x.ts` is `${WORKSPACE}lib/x.ts`. */
export const WORKSPACE = "/rayrun-workspace/";
const DECLARATIONS = `${WORKSPACE}rayrun.d.ts`;

export interface CheckOptions {
  /** The editor's default is strict; `false` lets untyped parameters (as in the docs' JS snippets) pass. */
  noImplicitAny?: boolean;
  /** Skip checking library `.d.ts` files (for checks that import the repo's modules and their dependencies). */
  skipLibCheck?: boolean;
}

const optionsFor = (check: CheckOptions): ts.CompilerOptions => ({
  target: ts.ScriptTarget.ES2022,
  lib: ["lib.es2024.d.ts"],
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  strict: true,
  noImplicitAny: check.noImplicitAny ?? true,
  // The served declarations are a `.d.ts`: checked unless asked otherwise; the compiler's own lib is trusted.
  skipLibCheck: check.skipLibCheck ?? false,
  skipDefaultLibCheck: true,
  types: [],
  noEmit: true,
});

// Parsed lib and repository files, shared by every program of the run (the same target each time).
const parsed = new Map<string, ts.SourceFile>();

const format = (diagnostic: ts.Diagnostic): string => {
  const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
  const at =
    diagnostic.file && diagnostic.start !== undefined
      ? `:${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line + 1}`
      : "";
  return `TS${diagnostic.code}${at} ${text}`;
};

/**
 * Checks `files` (workspace path → source) beside `declarations`; answers the
 * diagnostics per file (`rayrun.d.ts` for the declarations, `*` for the
 * program's global ones), each `TS<code>:<line> <message>`.
 */
export function typecheck(
  declarations: string,
  files: Readonly<Record<string, string>>,
  check: CheckOptions = {},
): Record<string, string[]> {
  const options = optionsFor(check);
  const virtual = new Map<string, string>([[DECLARATIONS, declarations]]);
  for (const [path, source] of Object.entries(files)) virtual.set(`${WORKSPACE}${path}`, source);
  const host = ts.createCompilerHost(options);
  const fromDisk = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, onError) => {
    const text = virtual.get(name);
    if (text !== undefined) return ts.createSourceFile(name, text, language, true);
    const hit = parsed.get(name);
    if (hit !== undefined) return hit;
    const file = fromDisk(name, language, onError);
    if (file !== undefined) parsed.set(name, file);
    return file;
  };
  host.fileExists = (name) => virtual.has(name) || ts.sys.fileExists(name);
  host.readFile = (name) => virtual.get(name) ?? ts.sys.readFile(name);
  const program = ts.createProgram({ rootNames: [...virtual.keys()], options, host });
  const out: Record<string, string[]> = {
    "*": [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()].map(format),
  };
  for (const name of virtual.keys()) {
    const file = program.getSourceFile(name);
    const diagnostics = file
      ? [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]
      : [];
    out[name.slice(WORKSPACE.length)] = diagnostics.map(format);
  }
  return out;
}

/** A repository file's text. */
export function repoFile(path: string): string {
  const text = ts.sys.readFile(`${REPO}${path}`);
  if (text === undefined) throw new Error(`${path} is not in the repository`);
  return text;
}

/** The repository files directly in `folder` with extension `extension`, as paths from the root. */
export function repoFiles(folder: string, extension: string): string[] {
  return ts.sys
    .readDirectory(`${REPO}${folder}`, [extension], undefined, undefined, 1)
    .map((path) => path.slice(REPO.length))
    .toSorted();
}
