// The stable codes a source file writes as string literals: `code: "x"`, and
// `code = … ? "x" : "y"` (comment lines skipped). Both doc-completeness tests
// read the gateway's codes this way, so they agree on what the code writes.
export function codeLiterals(source: string): string[] {
  const lines = source.split("\n").filter((line) => !line.trimStart().startsWith("//"));
  return lines.flatMap((line) => [
    ...[...line.matchAll(/\bcode\s*:\s*"([a-z_]+)"/g)].map((m) => m[1] ?? ""),
    ...(/\bcode\s*=[^;]*\?\s*"([a-z_]+)"\s*:\s*"([a-z_]+)"/.exec(line)?.slice(1) ?? []),
  ]);
}
