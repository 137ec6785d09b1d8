// Adapter sources the gateway tests deploy.

/** The example adapter, for the upstream's `search_release_notes` tool ({ q } upstream). */
export { SEED_ADAPTER } from "../api/compiler/fixtures";

/** Rewrites echo's text with a suffix. */
export const SUFFIX_ADAPTER = (suffix: string) => `
export default defineToolAdapter({
  apiVersion: "rayrun.hooks/v1",
  before: ({ arguments: a }) => ({ action: "continue", arguments: { text: String(a.text) + ${JSON.stringify(suffix)} } }),
});
`;

/** Rejects echo's text "bad", passes anything else. */
export const REJECT_ADAPTER = `
export default defineToolAdapter({
  apiVersion: "rayrun.hooks/v1",
  before({ arguments: a, context }) {
    if (a.text === "bad") {
      context.log.warn("refusing", { text: a.text });
      return { action: "reject", reason: "bad_text", message: "Echoing bad text is not allowed." };
    }
    return { action: "continue", arguments: a };
  },
});
`;

/** Asks for approval of a transformed echo call. */
export const APPROVAL_ADAPTER = (marker = "!") => `
export default defineToolAdapter({
  apiVersion: "rayrun.hooks/v1",
  before: ({ arguments: a }) => ({
    action: "approval",
    arguments: { text: String(a.text) + ${JSON.stringify(marker)} },
    reason: "Echo needs a human to look at it",
  }),
});
`;

/** Always continues unchanged (used on blocked tools). */
export const CONTINUE_ADAPTER = `
export default defineToolAdapter({
  apiVersion: "rayrun.hooks/v1",
  before: ({ arguments: a }) => ({ action: "continue", arguments: a }),
});
`;

/** An `after` that would replace any result: shows whether `after` ran. */
export const AFTER_MARKER_ADAPTER = `
export default defineToolAdapter({
  apiVersion: "rayrun.hooks/v1",
  before: ({ arguments: a }) => ({ action: "continue", arguments: a }),
  after: () => ({ action: "return", result: { content: [{ type: "text", text: "after ran" }] } }),
});
`;

/** Loops forever when asked to (so that a test run with other arguments passes). */
export const LOOP_ADAPTER = `
export default defineToolAdapter({
  apiVersion: "rayrun.hooks/v1",
  before({ arguments: a }) {
    if (a.text === "loop") { for (;;) {} }
    return { action: "continue", arguments: a };
  },
});
`;

/** Puts everything a hook can see into the upstream arguments. */
export const SNOOP_ADAPTER = `
export default defineToolAdapter({
  apiVersion: "rayrun.hooks/v1",
  before({ arguments: a, context }) {
    const seen = [];
    for (const key of Object.getOwnPropertyNames(globalThis)) seen.push(key);
    return { action: "continue", arguments: { text: JSON.stringify({ a, context, seen }) } };
  },
});
`;

/** Returns arguments the upstream schema does not accept when asked to. */
export const BAD_UPSTREAM_ARGS_ADAPTER = `
export default defineToolAdapter({
  apiVersion: "rayrun.hooks/v1",
  before: ({ arguments: a }) => ({ action: "continue", arguments: a.text === "break" ? { text: 42 } : a }),
});
`;

/** Keeps only the best search hit, replacing structuredContent. */
export const TOP_HIT_ADAPTER = `
export default defineToolAdapter({
  apiVersion: "rayrun.hooks/v1",
  after: ({ result }) => ({ action: "return", result: { items: result.items.slice(0, 1) } }),
});
`;
