// "Did you mean …?" for a mistyped command, subcommand or option. node:util's parseArgs, which
// reads the command line, has no suggestions of its own.

/** Edits between two words: insertions, deletions, substitutions and swaps of neighbours (deplyo → deploy is one). */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_row, i) =>
    Array.from({ length: b.length + 1 }, (_column, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, at(i - 2, j - 2) + 1);
      const row = rows[i];
      if (row) row[j] = best;
    }
  }
  return at(a.length, b.length);
}

/**
 * The known word closest to `typed`, when it is close enough to be a typo (one edit in short
 * words, up to a third of the word in longer ones); a word that starts with what was typed counts too.
 */
export function closest(typed: string, known: readonly string[]): string | undefined {
  const limit = Math.max(1, Math.floor(typed.length / 3));
  let best: { word: string; distance: number } | undefined;
  for (const word of known) {
    const distance = editDistance(typed.toLowerCase(), word.toLowerCase());
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { word, distance };
  }
  if (best) return best.word;
  const prefixed = typed.length >= 3 ? known.filter((word) => word.startsWith(typed)) : [];
  return prefixed.length === 1 ? prefixed[0] : undefined;
}

/** `; did you mean deploy?`, or nothing when no known word is close. */
export function didYouMean(typed: string, known: readonly string[], prefix = ""): string {
  const word = closest(typed, known);
  return word === undefined ? "" : `; did you mean ${prefix}${word}?`;
}
