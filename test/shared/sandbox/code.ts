// Hand-written stand-ins for compiler output: esbuild's iife format with
// globalName "__rayrunModule", so `__rayrunModule.default` is the default
// export. Plain strings only, so the Node bench can import this too.

export const moduleCode = (body: string): string => `var __rayrunModule = (() => {\n${body}\n})();`;

/** An adapter whose definition object literal has the given members. */
export const adapterCode = (members: string): string =>
  moduleCode(`return { default: defineToolAdapter({ apiVersion: "rayrun.hooks/v1", ${members} }) };`);

/** An adapter with only a `before` stage running `body`. */
export const beforeCode = (body: string): string =>
  adapterCode(`before({ arguments: args, context }) {\n${body}\n}`);

export const CONTINUE = `return { action: "continue", arguments: {} };`;

export const SEED_ADAPTER = adapterCode(`
  publicContract: {
    description: "Search public release notes",
    inputSchema: {
      type: "object",
      properties: { query: { type: "string" } },
      required: ["query"],
      additionalProperties: false,
    },
  },
  before({ arguments: args, context }) {
    context.log.info("Preparing search", { query: args.query });
    const prefix = typeof context.config.prefix === "string" ? context.config.prefix : "";
    return { action: "continue", arguments: { q: prefix + args.query } };
  },
  after({ result }) {
    return { action: "return", result: { items: result.items } };
  },
`);

/**
 * A ~2 KB adapter of the usual kind (compiled form): validates and normalises
 * arguments, builds a query, logs, and trims the result. Shared by the
 * sandbox bench and the warm-pool tests.
 */
export const ADAPTER_2KB = moduleCode(`
  const MAX_RESULTS = 25;
  const STOP_WORDS = new Set(["a", "an", "the", "of", "and", "or", "to", "in"]);
  const clamp = (value, low, high) => Math.min(high, Math.max(low, value));
  function normaliseQuery(text) {
    return String(text)
      .toLowerCase()
      .split(/\\s+/)
      .filter((word) => word.length > 0 && !STOP_WORDS.has(word))
      .join(" ")
      .slice(0, 200);
  }
  function pickFields(item, fields) {
    const out = {};
    for (const field of fields) if (item[field] !== undefined) out[field] = item[field];
    return out;
  }
  function redact(text) {
    return typeof text === "string" ? text.replace(/[\\w.+-]+@[\\w-]+\\.[\\w.]+/g, "[email]") : text;
  }
  return {
    default: defineToolAdapter({
      apiVersion: "rayrun.hooks/v1",
      publicContract: {
        description: "Search release notes with a normalised query",
        inputSchema: {
          type: "object",
          properties: {
            query: { type: "string", description: "Free text" },
            limit: { type: "integer", minimum: 1, maximum: 100 },
            product: { type: "string", enum: ["workers", "pages", "r2", "d1"] },
          },
          required: ["query"],
          additionalProperties: false,
        },
      },
      before({ arguments: args, context }) {
        const query = normaliseQuery(args.query ?? "");
        if (query === "") return { action: "reject", reason: "empty_query", message: "The query has no searchable words." };
        const limit = clamp(typeof args.limit === "number" ? args.limit : 10, 1, MAX_RESULTS);
        const prefix = typeof context.config.prefix === "string" ? context.config.prefix : "";
        context.log.info("search", { query, limit, product: args.product ?? null });
        const q = prefix + (args.product ? "product:" + args.product + " " : "") + query;
        return { action: "continue", arguments: { q, limit, requestedAt: new Date().toISOString() } };
      },
      after({ result, context }) {
        const items = Array.isArray(result.items) ? result.items : [];
        const trimmed = items.slice(0, MAX_RESULTS).map((item) => {
          const picked = pickFields(item, ["id", "title", "url", "summary"]);
          if (typeof picked.summary === "string") picked.summary = redact(picked.summary).slice(0, 280);
          return picked;
        });
        if (trimmed.length < items.length) context.log.debug("trimmed", { from: items.length, to: trimmed.length });
        return { action: "return", result: { items: trimmed, total: items.length } };
      },
    }),
  };
`);

/** The call context the benches run stages with (bench/sandbox.ts, dev/sandbox-bench). */
export const BENCH_CONTEXT = {
  calledAt: "2026-03-04T05:06:07.089Z",
  requestId: "req_bench",
  workspaceUid: "ws_bench",
  connectionId: "svc_bench",
  toolUid: "tool_bench",
  toolName: "search",
  config: { prefix: "release: " },
};

/**
 * The default export of the benches' plugin `n` (bench:llm deploys it, bench:stages runs it compiled):
 * hooks that await nothing and return the whole payload, as a plugin that looks and changes little would.
 */
export const benchPluginHooks = (n: number): string => `{
  "chat.params": (input) =>
    typeof input.temperature === "number" ? { ...input, temperature: Math.min(input.temperature, 1) } : undefined,
  "tool.execute.before": (input) => ({ ...input, args: { ...input.args } }),
  "tool.execute.after": (input) =>
    input.result && input.result.output.includes("secret-${n}")
      ? { ...input, result: { ...input.result, output: "[redacted]" } }
      : undefined,
}`;
