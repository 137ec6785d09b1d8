// What the client gets from an upstream result in step 5 of tool-call.ts: the
// result `after` returned, or without an `after` the upstream's own result
// checked against the public output schema, then projected as the tool's
// listing promises.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { stepRecord } from "../../../shared/adapter/records";
import { schemaFailure, type StepRun } from "../../../shared/adapter/steps";
import { isJsonObject } from "../../../shared/json";
import { upstreamSchemas } from "../../../shared/services/catalog";
import { parsedJson, projectResult, refusal, replaceResult } from "../../../shared/mcp/tool-results";
import type { LoadedRevision } from "../caches/revision-cache";
import { result, type ToolCallAnswer } from "./call-types";
import { refuse, type IndexedCall } from "./indexed-call";
import { failureMeta, validatorKeys } from "./stages";

/** No `after` ran: the upstream's structured content against the public output schema. */
export function checkedOutput(
  call: IndexedCall,
  revision: LoadedRevision | null,
  upstream: CallToolResult,
): ToolCallAnswer {
  const { tool, projection } = call.found;
  const contract = revision?.publicContract?.outputSchema;
  const schema = isJsonObject(contract) ? contract : upstreamSchemas(tool).outputSchema;
  const invalid =
    upstream.structuredContent === undefined
      ? null
      : schemaFailure(
          "public_output_invalid",
          schema,
          parsedJson(upstream.structuredContent),
          validatorKeys(tool, revision).publicOutput,
        );
  if (invalid) return refuse(call, failureMeta(invalid), revision?.id ?? null);
  return result(projectResult(upstream, projection));
}

/** `after` ran (it validated its own output): its failure, its `fail`, or the result it returned. */
export function afterOutput(
  call: IndexedCall,
  revision: LoadedRevision | null,
  upstream: CallToolResult,
  step: StepRun,
): ToolCallAnswer {
  call.recorder.record(stepRecord(call.scope, step, "active", revision?.id ?? null));
  if (!step.ok) return result(refusal(failureMeta(step.error)));
  const outcome = step.value;
  if (outcome.action === "fail") {
    return result(refusal({ code: "failed", reason: outcome.reason, message: outcome.message }));
  }
  const replaced = outcome.action === "return" ? replaceResult(upstream, outcome.result) : null;
  if (replaced === null) {
    return result(
      refusal({
        code: "hook_invalid_return",
        message: "after returned content that is not a list of MCP content blocks.",
      }),
    );
  }
  return result(projectResult(replaced, call.found.projection));
}
