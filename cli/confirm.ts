// Confirmation for destructive commands (delete, revoke, reset): `--yes`
// confirms up front; otherwise a terminal is asked; a script without a
// terminal and without --yes is refused rather than guessed for.
import { createInterface } from "node:readline/promises";
import { CliError } from "./client.ts";
import type { CommandContext } from "./context.ts";

/**
 * Resolves when the user confirmed `what` (`delete service svc_…`), with
 * `--yes` or by answering y on a terminal; throws a usage error without either,
 * and `aborted` when the user answers anything else.
 */
export async function confirm(ctx: CommandContext, what: string, consequence: string): Promise<void> {
  if (ctx.flags.yes === true) return;
  if (!process.stdin.isTTY) {
    throw new CliError(`${what}: ${consequence}; pass --yes to confirm`, "usage");
  }
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  let answer: string;
  try {
    answer = await prompt.question(`${what}? ${consequence}. [y/N] `);
  } finally {
    prompt.close();
  }
  if (!/^\s*y(es)?\s*$/i.test(answer)) throw new CliError("nothing was changed", "aborted");
}
