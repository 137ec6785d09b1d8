// What the compiler reports instead of a compiled adapter. Positions are
// 1-based lines and 1-based columns counted in UTF-16 code units (what editors
// such as Monaco expect). Problems without a place in the source report 1:1.
import type { Message } from "esbuild-wasm";

export type DiagnosticCode =
  | "syntax_error"
  | "unsupported_syntax"
  | "import_not_allowed"
  | "export_not_allowed"
  | "invalid_module"
  | "invalid_api_version"
  | "missing_stage"
  | "invalid_public_contract"
  | "regex_not_allowed"
  | "evaluation_failed"
  | "source_too_large"
  | "compiled_too_large"
  | "config_too_large"
  | "config_not_object"
  // Workspace files (lib/…, plugins/…):
  | "missing_export"
  | "invalid_plugin"
  | "unknown_plugin_hook"
  | "invalid_plugin_hook"
  | "missing_plugin_hook";

export interface Diagnostic {
  code: DiagnosticCode;
  message: string;
  line: number;
  column: number;
}

export interface Position {
  line: number;
  column: number;
}

export const START: Position = { line: 1, column: 1 };

export const diagnostic = (code: DiagnosticCode, message: string, at: Position = START): Diagnostic => ({
  code,
  message,
  line: at.line,
  column: at.column,
});

/** esbuild counts columns in UTF-8 bytes from 0; convert against the line's own text. */
export function esbuildPosition(message: Message): Position {
  const location = message.location;
  if (location === null) return START;
  const encoded = new TextEncoder().encode(location.lineText);
  const prefix = new TextDecoder().decode(encoded.subarray(0, location.column));
  return { line: location.line, column: prefix.length + 1 };
}

/**
 * Where `pattern` first matches in the source, for problems found only after
 * evaluation (the definition's values carry no positions). Best effort: a
 * match inside a comment or string is taken as well.
 */
export function locate(source: string, pattern: RegExp): Position | undefined {
  const match = pattern.exec(source);
  if (match === null) return undefined;
  const before = source.slice(0, match.index);
  const lineStart = before.lastIndexOf("\n") + 1;
  return { line: before.split("\n").length, column: match.index - lineStart + 1 };
}
