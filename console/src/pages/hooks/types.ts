// The API's answers the hook pages read (workers/api/routes: drafts, versions, deployments,
// tool-console, file-test, tools, quotas), typed as far as the pages use them.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface Draft {
  source: string;
  config: JsonObject;
  version: number;
  etag: string;
  formatted: boolean;
  updatedAt: string | null;
  actor: string | null;
  channel: string | null;
  note: string | null;
}

export interface PointerView {
  revisionId: string;
  setAt: string;
}

export interface Deployments {
  active: PointerView | null;
  shadow: PointerView | null;
}

export interface HookState {
  draft: Draft;
  deployments: Deployments;
}

export interface SaveAnswer {
  draft: Draft;
  version: number;
  noop: boolean;
}

export interface VersionMeta {
  version: number;
  actor: string;
  channel: string;
  note: string | null;
  createdAt: string;
  bytes: number;
  formatted: boolean;
  restoredFrom: number | null;
}

export interface VersionFull extends VersionMeta {
  source: string;
  config: JsonObject;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface Revision {
  id: string;
  version: number;
  codeHash: string;
  compiledBytes: number;
  /** Tool adapters: the upstream definition it was compiled against; files have none. */
  definitionHash?: string;
  exports?: string[];
  actor: string;
  createdAt: string;
}

export interface LogEntry {
  level: string;
  message: string;
  data?: Json;
  [key: string]: unknown;
}

/** A test console answer, tool stage or file function: the fields both kinds share. */
export interface TestAnswer {
  id: string;
  version: number;
  ok: boolean;
  /** Tool adapters: whether the stage ran (a missing stage passes the value through). */
  ran?: boolean;
  stage?: string;
  export?: string;
  hook?: string;
  /** Tool adapters: the stage's outcome (action and the transformed value). */
  outcome?: JsonObject;
  /** Files: the function's return value (absent for undefined). */
  value?: Json;
  code?: string;
  message?: string;
  errors?: unknown[];
  logs: LogEntry[];
  fuelUsed: number;
  durationMs: number;
}

export interface Tool {
  uid: string;
  name: string | null;
  upstreamName: string;
  serviceUid: string;
  serviceName: string;
  description: string | null;
  title: string | null;
  inputSchema: JsonObject;
  outputSchema: JsonObject | null;
  definitionHash: string;
  reviewState: string;
  removedAt: string | null;
  serviceDeleted?: boolean;
}

export interface Quota {
  limit: number;
  used: number;
  remaining: number;
  resetAt: string;
}

export interface Quotas {
  saves: Quota;
  compilations: Quota;
}
