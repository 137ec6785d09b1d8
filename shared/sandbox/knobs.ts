// The sandbox's internal settings: sizes and times that bound its caches.
// Limits users meet (fuel, memory, output) are in LIMITS (../limits.ts).
const MiB = 1024 * 1024;

export const SANDBOX_KNOBS = {
  /**
   * Whole copies of the code images in use (about 450 KB each): a call of one
   * of them restores with one copy per region (~6 µs) instead of applying its
   * delta to its base. Counted outside LIMITS.sandboxImageBytes, which bounds
   * the images themselves.
   */
  expandedImageBytes: 8 * MiB,
  /** Codes whose top level failed on its own, remembered so calls do not run it again. */
  rememberedFailures: 256,
  /** How long such a failure is remembered (a deploy of the same code may follow a fix elsewhere). */
  rememberedFailureMs: 60_000,
} as const;
