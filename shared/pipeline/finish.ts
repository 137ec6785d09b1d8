// Step 4's dispatch and step 5 of the tool-call path (tool-call.ts has the
// order), for a first call (call-attempt.ts) and an approved repeat
// (approved-call.ts) alike: exactly one upstream `tools/call`, plugins'
// `tool.execute.after` (on upstream tool errors too), then the active
// revision's `after`, public output validation and response projection.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { isJsonObject, type JsonObject } from "../json";
import { pluginsAfter } from "../plugins/execute-hooks";
import { schemaFailure } from "./adapter-steps";
import { pluginScope, refuse, result, type CallState, type ToolCallAnswer } from "./call-state";
import { upstreamSchemas } from "./catalog";
import { reindexService } from "../services/reindex";
import type { NotificationSink } from "../services/mcp-exchange";
import { clientRequestRelay } from "./client-relay";
import { dispatchToolCall } from "./dispatch";
import { serviceEndpoint } from "./upstream-session";
import { runRecord, stepRecord } from "./records";
import { afterInput, parsedJson, projectResult, refusal, replaceResult } from "./results";
import type { LoadedRevision } from "./revision-cache";
import type { ActiveTrace } from "./shadow";
import { comparable, failureMeta, runAfter, validatorKeys } from "./stages";

/** Step 4's dispatch and step 5. */
/**
 * What the upstream's notifications during the call become: a tools/list_changed
 * re-indexes the service after the response (once per call); progress and log
 * messages go to the client when it has a stream for them.
 */
function upstreamNotifications(state: CallState): NotificationSink {
  let reindexing = false;
  return async (notification) => {
    if (notification.method === "notifications/tools/list_changed") {
      if (!reindexing) state.ctx.waitUntil(reindexService(state.env, state.found.service, state.bearer));
      reindexing = true;
      return;
    }
    await state.req.relay?.(notification);
  };
}

export async function dispatchAndFinish(
  state: CallState,
  revision: LoadedRevision | null,
  args: JsonObject,
  trace: ActiveTrace,
): Promise<ToolCallAnswer> {
  const { found } = state;
  const relayRequest = clientRequestRelay(state.req, found.service.uid);
  const dispatched = await dispatchToolCall(
    {
      ...serviceEndpoint(found.service, state.bearer, {
        workspaceUid: state.req.workspaceUid,
        ...(state.req.sessionId === undefined ? {} : { sessionId: state.req.sessionId }),
        ...(state.req.clientCapabilities === undefined ? {} : { capabilities: state.req.clientCapabilities }),
      }),
      ...(state.req.progressToken === undefined ? {} : { progressToken: state.req.progressToken }),
      notify: upstreamNotifications(state),
      ...(relayRequest === undefined ? {} : { relayRequest }),
      ...(found.tool.listing?.execution?.taskSupport === "required" ? { asTask: true } : {}),
    },
    found.tool.upstreamName,
    args,
  );
  if (dispatched.kind === "unavailable" || dispatched.kind === "timeout") {
    const code = dispatched.kind === "timeout" ? "upstream_timeout" : "upstream_unavailable";
    return refuse(state, { code, message: dispatched.message }, revision?.id ?? null);
  }
  if (dispatched.kind === "rpc_error") {
    const { kind: _kind, ...error } = dispatched;
    return { kind: "upstream_error", ...error };
  }
  // Plugins' tool.execute.after (fail open) sees every upstream result, errors included.
  const plugged = await pluginsAfter(pluginScope(state), await state.plugins, args, dispatched.result);
  state.records.push(...plugged.records);
  const upstream = plugged.result;
  if (upstream.isError === true) {
    // Upstream tool errors stay the upstream's; `after` does not run.
    if (revision?.stages.includes("after")) {
      state.records.push(
        runRecord(state.scope, {
          stage: "after",
          channel: "active",
          outcome: "passed",
          code: "upstream_error",
          revisionId: revision.id,
        }),
      );
    }
    return result(upstream);
  }

  // 5) after, public output validation, projection.
  const input = afterInput(upstream);
  trace.liveResult = input;
  const after = await runAfter(state, revision, input);
  let final: CallToolResult;
  if (after === null) {
    trace.after = { action: "return", result: input };
    const contract = revision?.publicContract?.outputSchema;
    const schema = isJsonObject(contract) ? contract : upstreamSchemas(found.tool).outputSchema;
    const invalid =
      upstream.structuredContent === undefined
        ? null
        : schemaFailure(
            "public_output_invalid",
            schema,
            parsedJson(upstream.structuredContent),
            validatorKeys(found.tool, revision).publicOutput,
          );
    if (invalid) return refuse(state, failureMeta(invalid), revision?.id ?? null);
    final = upstream;
  } else {
    state.records.push(stepRecord(state.scope, after, "active", revision?.id ?? null));
    trace.after = comparable(after);
    if (!after.ok) return result(refusal(failureMeta(after)));
    if (after.outcome.action === "fail") {
      return result(
        refusal({ code: "failed", reason: after.outcome.reason, message: after.outcome.message }),
      );
    }
    const replaced = after.outcome.action === "return" ? replaceResult(upstream, after.outcome.result) : null;
    if (replaced === null) {
      return result(
        refusal({
          code: "hook_invalid_return",
          message: "after returned content that is not a list of MCP content blocks.",
        }),
      );
    }
    final = replaced;
  }
  return result(projectResult(final, found.projection));
}
