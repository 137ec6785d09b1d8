// The JSON a lifecycle target's routes answer with (drafts, versions, deployments), as zod
// schemas: the OpenAPI document describes each answer by them, and each route's handler shapes
// its answer by the same schema (openapi/describe.ts, `shaped`).
import { z } from "zod";
import type { StepRun } from "../../../shared/adapter/steps";

/** Any JSON value (configs, arguments, results). */
export const JsonValue = z.unknown();
/** A JSON object. */
export const JsonObject = z.record(z.string(), z.unknown());

/** Where a channel points (since when), or null. */
const Pointer = z.object({ revisionId: z.string(), setAt: z.string() }).nullable();
/** Where a target's channels point. */
export const DeploymentsAnswer = z.object({ active: Pointer, shadow: Pointer });

export const DraftAnswer = z.object({
  source: z.string(),
  config: JsonObject,
  version: z.number().int().describe("The draft's version; 0 before the first save"),
  etag: z.string(),
  formatted: z.boolean().describe("Whether the source was formatted (it parsed)"),
  updatedAt: z.string().nullable(),
  actor: z.string().nullable(),
  channel: z.string().nullable().describe("Where the save came from: api, cli or web"),
  note: z.string().nullable(),
});

/** `GET {base}`: the draft and where the channels point. */
export const TargetStateAnswer = z.object({ draft: DraftAnswer, deployments: DeploymentsAnswer });

/** `PUT {base}/draft`, `POST {base}/versions/{n}/restore`. */
export const SavedDraftAnswer = z.object({
  draft: DraftAnswer,
  version: z.number().int(),
  noop: z.boolean().describe("The save was identical to the draft: no new version"),
});

export const VersionMetaAnswer = z.object({
  version: z.number().int(),
  actor: z.string(),
  channel: z.string(),
  note: z.string().nullable(),
  createdAt: z.string(),
  bytes: z.number().int(),
  formatted: z.boolean(),
  restoredFrom: z.number().int().nullable(),
});

export const VersionAnswer = VersionMetaAnswer.extend({ source: z.string(), config: JsonObject });

export const VersionDiffAnswer = z.object({
  version: z.number().int(),
  against: z.number().int().describe("The predecessor's number; 0 is the empty draft"),
  changed: z.object({ source: z.boolean(), config: z.boolean() }),
  source: z.string().nullable().describe("Unified diff; null when the change is too large to diff"),
  config: z.string().nullable().describe("Unified diff of the pretty-printed config; null when too large"),
  tooLarge: z.boolean(),
});

export const ExportAnswer = z.object({
  format: z.string(),
  workspaceUid: z.string(),
  target: z.string(),
  generation: z.number().int(),
  draft: z.object({ version: z.number().int(), etag: z.string() }),
  exportedAt: z.string(),
  versions: z.array(VersionAnswer),
});

/** A deployment revision: a tool adapter's (publicContract, stages) or a file's (exports). */
export const RevisionAnswer = z.object({
  id: z.string(),
  version: z.number().int(),
  codeHash: z.string(),
  compiledBytes: z.number().int(),
  config: JsonObject,
  actor: z.string(),
  createdAt: z.string(),
  publicContract: JsonObject.nullable().optional().describe("Tool adapters: the contract clients see"),
  stages: z.array(z.string()).optional().describe("Tool adapters: the stages the hook defines"),
  definitionHash: z.string().optional().describe("Tool adapters: the upstream definition compiled against"),
  exports: z.array(z.string()).optional().describe("Workspace files: the exported functions or hooks"),
});

/** `POST {base}/compile`. */
export const CompileSummaryAnswer = z.object({
  version: z.number().int(),
  compiledBytes: z.number().int(),
  hash: z.string(),
  publicContract: JsonObject.nullable().optional(),
  stages: z.array(z.string()).optional(),
  path: z.string().optional(),
  kind: z.string().optional(),
  exports: z.array(z.string()).optional(),
});

export const DeploymentAnswer = z.object({
  channel: z.string(),
  reused: z.boolean().describe("An identical compile was reused (200) rather than created (201)"),
  revision: RevisionAnswer,
});

export const RollbackAnswer = z.object({ channel: z.string(), revision: RevisionAnswer });

export const DropShadowAnswer = z.object({
  dropped: z.string().nullable().describe("The revision shadow pointed at; null when it pointed nowhere"),
  deployments: DeploymentsAnswer,
});

export const ResetAnswer = z.object({
  event: z.object({
    id: z.string(),
    workspaceUid: z.string(),
    target: z.string(),
    actor: z.string(),
    at: z.string(),
    versionsRemoved: z.number().int(),
    revisionsRemoved: z.number().int(),
  }),
  released: z.object({ draftHistoryBytes: z.number().int(), deployedCodeBytes: z.number().int() }),
});

/** A log line a hook wrote during a test run. */
export const HookLogAnswer = z.object({ level: z.string(), message: z.string(), data: JsonValue.optional() });

/** One stage of a tool adapter run (the test console, the playground): the outcome or the failure. */
export const AdapterRunAnswer = z.object({
  ok: z.boolean().describe("false when the hook failed; the run still answers 200"),
  stage: z.string(),
  ran: z.boolean().describe("Whether the adapter defines the stage"),
  outcome: JsonObject.optional().describe("ok: what the stage decided (`action` and its data)"),
  code: z.string().optional().describe("Not ok: the failure's stable code"),
  message: z.string().optional(),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  logs: z.array(HookLogAnswer),
  fuelUsed: z.number(),
  durationMs: z.number(),
});

/**
 * A run as AdapterRunAnswer says it: the run keeps a Result, the answer puts the
 * outcome, or the failure's code, message and errors, flat beside `ok`.
 */
export function adapterRunAnswer(run: StepRun) {
  const { stage, ran, logs, fuelUsed, durationMs } = run;
  const meta = { stage, ran, logs, fuelUsed, durationMs };
  return run.ok ? { ok: run.ok, outcome: run.value, ...meta } : { ok: run.ok, ...run.error, ...meta };
}
