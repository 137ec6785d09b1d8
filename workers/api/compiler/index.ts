// The compiler belongs to the api Worker only. The gateway must never import
// this module: esbuild-wasm would dwarf the gateway bundle.
export { compileToolAdapter } from "./compile";
export type { CompileDependencies, CompileInput, CompiledAdapter } from "./compile";
export type { Diagnostic, DiagnosticCode } from "./diagnostics";
export { API_VERSION } from "./definition";
export { MODULE_GLOBAL } from "./bundle";
export { compileWorkspaceFile } from "./file";
export type { CompiledFile, FileCompileDependencies } from "./file";
