// Internal knobs, in one place: cache sizes and ages, timeouts, retries and
// batch sizes. Users never meet them as limits (those are LIMITS, ./limits.ts,
// served by `GET /v1/limits`): changing one changes cost or latency, not what
// a request may contain.
//
// Isolate caches are least-recently-used (shared/cache.ts). Their bounds keep a
// stream of distinct keys from growing an isolate's memory without limit; their
// ages only matter where a writer could fail between its write and the
// catalog-version bump that invalidates the copy sooner.
const KiB = 1024;
const MiB = 1024 * KiB;

export const KNOBS = {
  // Gateway isolate caches (workers/gateway).

  /** Resolved API keys kept; scopes and profile never change, revocation is asked per request. */
  principalCacheEntries: 4096,
  /** Age of a resolved key: D1 is not read per call, and a deleted key stops resolving within a minute. */
  principalCacheMs: 60_000,
  /** Workspace catalogs kept, one per workspace and access profile. */
  catalogCacheEntries: 1024,
  /** Age of a catalog copy; version tags invalidate it sooner (this covers a writer that failed to bump). */
  catalogCacheMs: 60_000,
  /** Revision rows kept; small and immutable (contract, config, stages). */
  revisionMetaCacheEntries: 1024,
  /** Compiled revision code kept, in UTF-8 bytes; dozens of revisions at LIMITS.compiledBytes each. */
  revisionCodeCacheBytes: 8 * MiB,
  /**
   * A workspace whose pointed revisions' code is at most this many bytes is
   * loaded whole when an isolate takes a new view of it (shared/deploy/revision-store.ts):
   * a handful of adapters and plugins, well inside revisionCodeCacheBytes so
   * warming one workspace cannot push out another's code.
   */
  warmCodeBytes: 1 * MiB,
  /** Plugin tool definitions kept, one list per plugin revision (immutable). */
  pluginToolDefsCacheEntries: 4096,
  /** Upstream MCP sessions kept, per owner, URL and token; a forgotten one costs one handshake. */
  upstreamSessionEntries: 1024,

  // Isolate caches of shared code (both Workers).

  /** JSON Schema validators kept: building one costs far more than a validation (~12 µs). */
  validatorCacheEntries: 256,
  /** Derived per-workspace secret keys kept; an HKDF derivation is cheap but not free on the hot path. */
  secretKeyCacheEntries: 512,
  /** Workspaces' active plugin lists kept, each tagged with the catalog version it was read at. */
  pluginListCacheEntries: 1024,
  /** Age of a plugin list; deploys and config writes bump the version sooner (this covers a failed bump). */
  pluginListCacheMs: 60_000,
  /** Loaded file revisions (request hooks, plugins) kept, in UTF-8 bytes of code. */
  fileRevisionCacheBytes: 4 * MiB,
  /** Workspace uids known to exist; workspaces are never deleted, so an entry never goes stale. */
  workspaceExistsCacheEntries: 4096,

  // The WorkspaceObject (durable-objects/workspace).

  /** Entries of each of its memory caches (meta, pointers, revoked keys); a dropped one is read from SQL. */
  workspaceObjectCacheEntries: 4096,

  // Leases on a workspace's view (durable-objects/workspace/lease.ts, shared/lease/).

  /**
   * Lease length. It is how long a deploy, rollback, reset, revocation or
   * catalog write may wait before it returns while isolates hold leases, and
   * how often each busy isolate renews (in the background, at
   * leaseRenewAtFraction of it): 5 s keeps a deploy's wait short enough to sit
   * through, and renewals per isolate and workspace near 0.27 per second, which a busy
   * workspace's call rate dwarfs.
   */
  leaseMs: 5000,
  /**
   * A held lease is renewed in the background once this fraction of it has
   * passed: the rest (1.25 s) leaves a renewal many round trips to finish
   * before a call would have to wait for one.
   */
  leaseRenewAtFraction: 0.75,
  /**
   * Added to a write's wait past the last lease's end: covers the two clocks'
   * rate difference over one lease (parts per million of 5 s) and timer
   * granularity, with room to spare.
   */
  leaseMarginMs: 50,
  /**
   * CPU the isolate may have spent since its clock last moved outside the
   * sandbox's own count (the gateway's JSON, validation and glue between two
   * I/O events); a lease must outlast the clock by this much to be used.
   */
  leaseClockSlackMs: 25,
  /** Workspaces whose lease one isolate keeps. */
  leaseEntries: 4096,
  /** Workspace config copies kept, one per workspace and catalog version (older versions age out). */
  configCacheEntries: 1024,
  /**
   * How long a revoked key stays in the leased view: past the age of an
   * isolate's resolved key (principalCacheMs), D1 refuses it on resolution.
   */
  revokedKeyHorizonMs: 120_000,

  // The sandbox's memory images (shared/sandbox/image/images.ts). Expanded images count outside
  // LIMITS.sandboxImageBytes, which bounds the images themselves.

  /** Whole copies of in-use code images (~450 KB each): a call restores in one copy (~6 µs), not a delta. */
  sandboxExpandedImageBytes: 8 * MiB,
  /** Codes whose top level failed on its own, remembered so calls do not run it again. */
  sandboxRememberedFailures: 256,
  /** How long such a failure is remembered (a deploy of the same code may follow a fix elsewhere). */
  sandboxRememberedFailureMs: 60_000,

  // Upstream MCP servers.

  /** Each request of a `tools/list` walk (initialize, each page), so a stuck upstream cannot hold one. */
  upstreamListRequestMs: 15_000,
  /** `nextCursor` pages of one `tools/list` walk followed before giving up. */
  upstreamListPages: 50,
  /** Resumptions (Last-Event-ID) of a stream an upstream closed before its answer, within the deadline. */
  streamResumeAttempts: 5,
  /** Longest wait before a resumption, whatever `retry` the upstream asked for. */
  streamResumeMaxDelayMs: 5_000,
  /** Wait before a resumption when the upstream asked for none. */
  streamResumeDefaultDelayMs: 1_000,
  /** Passing a client's answer to a relayed request (sampling, elicitation, roots) on to its upstream. */
  relayForwardMs: 10_000,
  /** Opening the client's session with one upstream for its standalone stream (GET /mcp). */
  standaloneOpenMs: 10_000,
  /** Upstream streams one standalone stream holds: a request keeps at most six connections, one spare. */
  standaloneStreamsMax: 5,
  /** Encoded client capabilities longer than this are kept by name only, so session ids stay under 256. */
  sessionCapabilitiesChars: 160,

  // Plugins.

  /** Plugin targets read per WorkspaceObject call; a workspace rarely has more plugins than one page. */
  pluginListPage: 200,

  // Run records (shared/logs).

  /** Gathering time of a batch of run records, for fewer D1 writes (the `LOG_BATCH_MS` var overrides it). */
  logBatchDelayMs: 200,
  /** Run records after which a batch is written without waiting. */
  logBatchMaxRows: 250,
  /** Largest JSON text of one record's stored details, so rows and log reads stay small. */
  logDetailsBytes: 16 * KiB,
  /** Longest stored detail texts, in characters (≤ 3 bytes each, so together they fit logDetailsBytes). */
  logDetailTextChars: { reason: 256, message: 1024, error: 2048 },

  // The API Worker.

  /** Edit length of a version diff: Workers freeze clocks during CPU work, so a timeout would not fire. */
  diffMaxEditLength: 20_000,
  /** Schema nesting rendered in generated .d.ts before falling back to `unknown`. */
  typesMaxDepth: 16,
  /** Subschemas rendered per generated .d.ts, so a huge upstream schema cannot make a huge file. */
  typesMaxNodes: 2000,
  /** Characters of a schema description kept as a doc comment in generated .d.ts. */
  typesDocChars: 400,
  /** Versions read per query while a draft history is exported. */
  draftExportPage: 20,
  /** Characters of an upstream's error quoted in a problem. */
  upstreamMessageChars: 500,
} as const;

export type Knobs = typeof KNOBS;
