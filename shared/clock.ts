// Workers freeze Date.now() while code runs: the clock moves only when I/O
// completes, so a reading can lag real time by the CPU spent since it last
// moved. Most of that CPU is the sandbox's, which counts its own work exactly
// (fuel), so it reports it here. Code that must not act on a reading older
// than it looks (a lease check right before a dispatch) adds what was
// reported since the reading last changed. Where the clock is not frozen
// (local development), readings move on their own and nothing is added.

let mark = Number.NaN;
let unseen = 0;

/** Records `ms` of CPU spent just now (an upper bound of it). */
export function noteCpuMs(ms: number): void {
  const now = Date.now();
  if (now !== mark) {
    mark = now;
    unseen = 0;
  }
  unseen += ms;
}

/** CPU reported since the clock last moved: how far behind real time `Date.now()` may be. */
export function unseenCpuMs(): number {
  return Date.now() === mark ? unseen : 0;
}
