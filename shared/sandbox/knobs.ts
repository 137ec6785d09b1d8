// The sandbox's internal settings, as the sandbox reads them: its entries of
// KNOBS (../knobs.ts), where each is documented. Limits users meet (fuel,
// memory, output) are in LIMITS (../limits.ts).
import { KNOBS } from "../knobs";

export const SANDBOX_KNOBS = {
  expandedImageBytes: KNOBS.sandboxExpandedImageBytes,
  rememberedFailures: KNOBS.sandboxRememberedFailures,
  rememberedFailureMs: KNOBS.sandboxRememberedFailureMs,
} as const;
