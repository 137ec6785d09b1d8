// One adapter stage with the validation around it, as the tool-call path
// runs it. The playground
// (`POST /v1/run`) and the gateway share this, so both fail the same way.
import type { Json, JsonObject } from "../json";
import { runAdapterStage } from "../sandbox";
import type {
  AdapterStage,
  AfterOutcome,
  BeforeOutcome,
  LogEntry,
  SandboxErrorCode,
  ToolCallContext,
} from "../sandbox/types";
import { getValidator, type ValidationIssue } from "../contract/validator";
import { err, ok, type Result } from "../result";

export interface RunnableAdapter {
  code: string;
  stages: AdapterStage[];
  publicContract: { inputSchema?: JsonObject; outputSchema?: JsonObject } | null;
}

export interface UpstreamSchemas {
  inputSchema?: JsonObject;
  outputSchema?: JsonObject;
}

/** Codes of a step that failed closed: the sandbox's, or a schema the values did not meet. */
export type StepFailureCode =
  | SandboxErrorCode
  | "public_arguments_invalid"
  | "upstream_arguments_invalid"
  | "public_output_invalid";

/** A step that failed closed; `errors` when a schema was not met. */
export interface StepFailure {
  code: StepFailureCode;
  message: string;
  errors?: ValidationIssue[];
}

/** What the stage decided, or why it failed closed, with what the run cost either way. */
export type StepRun = Result<BeforeOutcome | AfterOutcome, StepFailure> & StepMeta;

export interface StepMeta {
  stage: AdapterStage;
  /** False when the adapter has no such stage (the value passes through) or input validation stopped it. */
  ran: boolean;
  logs: LogEntry[];
  fuelUsed: number;
  durationMs: number;
}

export interface StepRequest {
  adapter: RunnableAdapter;
  stage: AdapterStage;
  upstream: UpstreamSchemas;
  context: ToolCallContext;
  arguments?: Json;
  result?: Json;
  /**
   * Cache keys for the validators of the schemas involved, when the caller holds
   * immutable ids for them (the gateway: revision id, definition hash). Without
   * them validators are cached by the schema's canonical JSON.
   */
  validatorKeys?: ValidatorKeys;
}

export interface ValidatorKeys {
  publicInput?: string;
  upstreamInput?: string;
  publicOutput?: string;
}

const idle = { logs: [], fuelUsed: 0, durationMs: 0 };

export function schemaFailure(
  code: "public_arguments_invalid" | "upstream_arguments_invalid" | "public_output_invalid",
  schema: JsonObject | undefined,
  value: Json,
  key?: string,
): (StepFailure & { errors: ValidationIssue[] }) | null {
  if (!schema) return null;
  const valid = (key === undefined ? getValidator(schema) : getValidator(schema, key)).validate(value);
  if (valid.ok) return null;
  const what = {
    public_arguments_invalid: "The arguments do not match the tool's public input schema.",
    upstream_arguments_invalid: "The transformed arguments do not match the upstream input schema.",
    public_output_invalid: "The result does not match the tool's public output schema.",
  }[code];
  return { code, message: what, errors: valid.error.errors };
}

export async function runAdapterStep(req: StepRequest): Promise<StepRun> {
  const { adapter, stage, upstream } = req;
  const keys = req.validatorKeys ?? {};
  const args = req.arguments ?? {};
  if (stage === "before") {
    const invalid = schemaFailure(
      "public_arguments_invalid",
      adapter.publicContract?.inputSchema ?? upstream.inputSchema,
      args,
      keys.publicInput,
    );
    if (invalid) return { ...err(invalid), stage, ran: false, ...idle };
  }

  let outcome: BeforeOutcome | AfterOutcome;
  let meta: StepMeta;
  if (adapter.stages.includes(stage)) {
    const report = await runAdapterStage({
      code: adapter.code,
      stage,
      context: req.context,
      arguments: args,
      ...(req.result === undefined ? {} : { result: req.result }),
    });
    meta = { stage, ran: true, logs: report.logs, fuelUsed: report.fuelUsed, durationMs: report.durationMs };
    if (!report.outcome.ok) {
      const { code, message } = report.outcome.error;
      // Stages run without an abort signal (a tool call, once admitted, runs to its end).
      if (code === "hook_cancelled") throw new Error("an adapter stage was cancelled");
      return { ...err({ code, message }), ...meta };
    }
    outcome = report.outcome.value;
  } else {
    // No such stage: the value passes through and is still validated as the gateway would.
    meta = { stage, ran: false, ...idle };
    outcome =
      stage === "before"
        ? { action: "continue", arguments: args }
        : { action: "return", result: req.result ?? null };
  }

  const invalid =
    outcome.action === "continue" || outcome.action === "approval"
      ? schemaFailure(
          "upstream_arguments_invalid",
          upstream.inputSchema,
          outcome.arguments,
          keys.upstreamInput,
        )
      : outcome.action === "return"
        ? schemaFailure(
            "public_output_invalid",
            adapter.publicContract?.outputSchema ?? upstream.outputSchema,
            outcome.result,
            keys.publicOutput,
          )
        : null;
  if (invalid) return { ...err(invalid), ...meta };
  return { ...ok(outcome), ...meta };
}
