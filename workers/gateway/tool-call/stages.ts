// One call's adapter stages with the validation around them, shared by the
// active path (steps 2 and 5 of tool-call.ts) and shadow runs (shadow.ts).
import type { Json } from "../../../shared/json";
import { err, ok } from "../../../shared/result";
import type { ToolCallContext } from "../../../shared/sandbox/types";
import {
  runAdapterStep,
  schemaFailure,
  type StepRun,
  type ValidatorKeys,
} from "../../../shared/adapter/steps";
import { upstreamSchemas, type CatalogTool } from "../../../shared/services/catalog";
import type { RefusalMeta } from "../../../shared/mcp/tool-results";
import type { LoadedRevision } from "../caches/revision-cache";

/** What the stages of one call share: who is calling which tool, when. */
export interface StageScope {
  req: { workspaceUid: string; requestId: string };
  calledAt: string;
  found: CatalogTool;
}

/** What a stage compares as for shadow runs: action plus arguments or result (or the failure code). */
export interface Comparable {
  action: string;
  arguments?: Json;
  result?: Json;
  reason?: string;
  code?: string;
}

export function validatorKeys(tool: CatalogTool["tool"], revision: LoadedRevision | null): ValidatorKeys {
  const def = `def:${tool.definitionHash}`;
  return {
    publicInput: revision?.publicContract?.inputSchema ? `rev:${revision.id}:in` : `${def}:in`,
    upstreamInput: `${def}:in`,
    publicOutput: revision?.publicContract?.outputSchema ? `rev:${revision.id}:out` : `${def}:out`,
  };
}

export function callContext(state: StageScope, revision: LoadedRevision | null): ToolCallContext {
  return {
    calledAt: state.calledAt,
    requestId: state.req.requestId,
    workspaceUid: state.req.workspaceUid,
    connectionId: state.found.service.uid,
    toolUid: state.found.tool.uid,
    toolName: state.found.tool.publicName ?? state.found.tool.upstreamName,
    config: revision?.config ?? {},
  };
}

/** `before` of `revision`, or the pass-through (public = upstream schema) when no adapter is active. */
export async function runBefore(
  state: StageScope,
  revision: LoadedRevision | null,
  args: Json,
): Promise<StepRun> {
  const { tool } = state.found;
  const keys = validatorKeys(tool, revision);
  if (revision === null) {
    const invalid = schemaFailure(
      "public_arguments_invalid",
      upstreamSchemas(tool).inputSchema,
      args,
      keys.publicInput,
    );
    const idle = { stage: "before" as const, ran: false, logs: [], fuelUsed: 0, durationMs: 0 };
    return invalid
      ? { ...err(invalid), ...idle }
      : { ...ok({ action: "continue", arguments: args }), ...idle };
  }
  return runAdapterStep({
    adapter: revision.adapter,
    stage: "before",
    upstream: upstreamSchemas(tool),
    context: callContext(state, revision),
    arguments: args,
    validatorKeys: keys,
  });
}

/** `after` of `revision` on the upstream result's `after` input, or the pass-through. */
export async function runAfter(
  state: StageScope,
  revision: LoadedRevision | null,
  input: Json,
): Promise<StepRun | null> {
  if (revision === null || !revision.stages.includes("after")) return null;
  return runAdapterStep({
    adapter: revision.adapter,
    stage: "after",
    upstream: upstreamSchemas(state.found.tool),
    context: callContext(state, revision),
    result: input,
    validatorKeys: validatorKeys(state.found.tool, revision),
  });
}

/** A step as shadow runs compare it. */
export function comparable(step: StepRun): Comparable {
  if (!step.ok) return { action: "error", code: step.error.code };
  const o = step.value;
  if (o.action === "continue" || o.action === "approval") return { action: o.action, arguments: o.arguments };
  if (o.action === "return") return { action: o.action, result: o.result };
  return { action: o.action, reason: o.reason };
}

export function failureMeta(step: {
  code: string;
  message: string;
  errors?: { path: string; message: string }[];
}): RefusalMeta {
  const detail = (step.errors ?? [])
    .slice(0, 3)
    .map((e) => `${e.path === "" ? "/" : e.path}: ${e.message}`)
    .join("; ");
  return { code: step.code, message: detail === "" ? step.message : `${step.message} ${detail}` };
}
