// Every limit in force, in one place. `GET /v1/limits` returns this object,
// and each entry has a boundary test (at the limit passes, one over fails).
const KiB = 1024;
const MiB = 1024 * KiB;

export const LIMITS = {
  /** Hook source text, UTF-8 bytes. */
  sourceBytes: 100 * KiB,
  /** Compiled JavaScript, UTF-8 bytes. */
  compiledBytes: 150 * KiB,
  /** Non-secret JSON config, UTF-8 bytes of its JSON text. */
  configBytes: 16 * KiB,
  /** Active + shadow compiled code per workspace. */
  deployedCodeBytesPerWorkspace: 16 * MiB,
  /** Draft history per workspace. */
  draftHistoryBytesPerWorkspace: 64 * MiB,
  /** Draft saves per workspace per hour. */
  draftSavesPerHour: 120,
  /** Compilation attempts per API key per hour. */
  compilationsPerHour: 120,
  /** JSON size of the (transformed) arguments sent to an upstream in one call. */
  upstreamArgumentsBytes: 256 * KiB,
  /** UTF-8 size of one workspace secret's value. */
  secretValueBytes: 8 * KiB,
  /** Largest JSON request body the API parses. */
  requestBodyBytes: 512 * KiB,
  /**
   * Deepest nesting of arrays and objects in a JSON body (API, `/mcp`, `/llm`),
   * checked right after parsing, before any schema sees the value.
   */
  jsonDepth: 64,
  /**
   * `tools/call` requests in one JSON-RPC batch on `/mcp` (clients of MCP
   * versions before 2025-06-18; later versions have no batches).
   */
  mcpBatchToolCalls: 16,
  /**
   * Requests per minute one key may send to `/mcp` or `/llm` of a workspace:
   * the values a workspace config may choose, each served by a Workers Rate
   * Limiting binding (`RATE_LIMIT_<n>` in the gateway's wrangler config).
   */
  rateLimitTiersPerMinute: [60, 600, 6000, 60000],
  /** A key's `/mcp` requests per minute when the workspace config sets none. */
  mcpRequestsPerMinute: 6000,
  /** A key's `/llm` requests per minute when the workspace config sets none. */
  llmRequestsPerMinute: 600,
  /** Shortest timeout a service or provider may set. */
  timeoutMinMs: 100,
  /** An upstream MCP call's bound (handshake when needed + tools/call) when its service sets none. */
  upstreamTimeoutMs: 60_000,
  /** Longest `timeoutMs` a service may set. */
  upstreamTimeoutMaxMs: 300_000,
  /** Wait for an LLM provider's response headers when the workspace config sets none. */
  providerFirstByteMs: 120_000,
  /** Longest gap between two parts of a provider's response body when the config sets none. */
  providerIdleMs: 60_000,
  /** Longest provider timeout the workspace config may set. */
  providerTimeoutMaxMs: 600_000,
  /** A request hook's time when its `timeout_ms` is unset; capped by `limits.execution_timeout_ms`. */
  requestHookTimeoutMs: 5000,
  /**
   * A plugin hook's time: CPU work as fuel (× FUEL_PER_MS), awaited
   * work on the wall clock. Past it the plugin is abandoned and its
   * contribution dropped.
   */
  pluginHookTimeoutMs: 5000,
  /**
   * `rayrun.model` calls one request-hook invocation may make; a loop policy's
   * `model.maxCalls` may lower it, never raise it.
   */
  hostModelCallsPerInvocation: 8,
  /**
   * Highest `recovery.structuralRetries`: reruns of a request hook after a
   * host-call timeout, a cancelled host call or an engine failure.
   */
  structuralRetries: 2,
  /** Loops (main included) the workspace config's `loops` may set a policy for. */
  loopPolicies: 32,
  /** Entries in each list of one loop policy (`lambda.allow`, `lambda.approve`, `model.models`). */
  loopPolicySources: 50,

  /** Code Mode: `tools.<name>()` calls one `execute` may make. */
  codeModeCallsPerExecution: 20,
  /** Code Mode: `tools.<name>()` calls of one `execute` in flight at once (`Promise.all`). */
  codeModeConcurrentCalls: 8,
  /** Code Mode: wall time one `execute` may spend awaiting its tool calls, from its start. */
  codeModeWallTimeMs: 30_000,
  /** Code Mode: UTF-8 size of the code one `execute` runs. */
  codeModeCodeBytes: 32 * KiB,
  /** Code Mode: JSON size of the value one `execute` returns. */
  codeModeOutputBytes: 64 * KiB,

  /** Deterministic time budget of one hook invocation, in fuel units. */
  fuelPerInvocation: 1_000_000,
  /**
   * Loop turns of the engine's own (native) code one phase of an invocation
   * may run. Fuel charges native turns as it polls; this hard stop is for a
   * single built-in that runs that long before the next poll. A hook within
   * its fuel uses at most a quarter of it.
   */
  nativeLoopTurns: 1_000_000_000,
  /** Hard cap of the QuickJS module's linear memory, shared by every call in an isolate. */
  sandboxMemoryBytes: 32 * MiB,
  /**
   * Memory images of compiled hook code kept in one isolate (each image is
   * kept as its difference from the prelude it was built on, tens of KB).
   * Past it the least recently used are dropped and rebuilt when called again.
   */
  sandboxImageBytes: 16 * MiB,
  /**
   * State set aside in one isolate by hooks awaiting a host call (a copy of
   * each one's sandbox memory, ~0.5 MB for a small hook). A hook that would
   * go over it fails with hook_out_of_memory instead of waiting.
   */
  sandboxParkedBytes: 16 * MiB,
  /** QuickJS heap limit of one invocation's runtime. */
  invocationMemoryBytes: 8 * MiB,
  /**
   * Native stack available to one invocation (~300 simple JS frames). Kept
   * small because every error's backtrace walks all frames; see FUEL in
   * shared/sandbox/call/fuel.ts.
   */
  stackBytes: 64 * KiB,
  /** JSON size of the value a stage returns. */
  outputBytes: 256 * KiB,
  /** Log entries one invocation may emit. */
  logEntries: 50,
  /** Characters in one log message. */
  logMessageChars: 1024,
  /** JSON size of one log entry's data. */
  logDataBytes: 8 * KiB,
} as const;

export type Limits = typeof LIMITS;
