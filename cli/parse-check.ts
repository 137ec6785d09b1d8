// Where a source stops parsing, found with the parser the API formats sources
// with on save (Prettier's TypeScript parser): the API stores a source it could
// not parse unformatted, and for workspace files it has no compile route to ask.
import type { SourceDiagnostic } from "./client.ts";

interface ParseError {
  message: string;
  loc?: { start?: { line?: number; column?: number } };
}

/** The syntax error in `source`, if Prettier's TypeScript parser finds one; Prettier loads only when asked. */
export async function syntaxErrors(source: string): Promise<SourceDiagnostic[]> {
  const [{ format }, estree, typescript] = await Promise.all([
    import("prettier/standalone"),
    import("prettier/plugins/estree"),
    import("prettier/plugins/typescript"),
  ]);
  try {
    await format(source, { parser: "typescript", plugins: [estree, typescript] });
    return [];
  } catch (error) {
    const { message, loc } = error as ParseError;
    // The first line, without the ` (3:13)` Prettier appends and the code frame after it.
    const text = (message.split("\n")[0] ?? message).replace(/\s*\(\d+:\d+\)$/, "");
    return [
      { code: "syntax_error", message: text, line: loc?.start?.line ?? 1, column: loc?.start?.column ?? 1 },
    ];
  }
}
