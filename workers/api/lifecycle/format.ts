// Formatting on save: Prettier's standalone build with its TypeScript parser
// runs inside workerd (no eval, no filesystem). Source that does not parse is
// kept exactly as written.
import * as estree from "prettier/plugins/estree";
import * as typescript from "prettier/plugins/typescript";
import { format } from "prettier/standalone";

export interface FormattedSource {
  source: string;
  /** False when the source did not parse and is stored unchanged. */
  formatted: boolean;
}

export async function formatSource(source: string): Promise<FormattedSource> {
  if (source.trim() === "") return { source, formatted: false };
  try {
    const out = await format(source, { parser: "typescript", plugins: [estree, typescript] });
    return { source: out, formatted: true };
  } catch {
    return { source, formatted: false };
  }
}
