// What one loop's policy lets a hook's host calls do. The bridge asks here
// before any capability runs: a refusal is a HostCallError the hook can catch
// (`host_call_forbidden`), and a call the policy marks for approval goes to
// the invocation's approval gate first (host-approvals.ts).
import { normaliseSource, type LoopPolicy } from "../config/loops";
import { isJsonObject, type Json } from "../json";
import { HostCallError } from "../sandbox";

export const HOST_CALL_FORBIDDEN = "host_call_forbidden";

/** A host call as the policy and the approvals see it. */
export interface HostCallRequest {
  /** The capability: `lambda` or `model`. */
  name: "lambda" | "model";
  /** `lambda`: the normalised source (`lib/x.ts:fn`); `model`: the model named, if any. */
  target: string | null;
  input: Json;
}

const forbidden = (loop: string, what: string): HostCallError =>
  new HostCallError(HOST_CALL_FORBIDDEN, `${what} is not allowed in loop "${loop}"`);

/** The call `input` makes of capability `name` (target null when the input names none). */
export function describeHostCall(name: "lambda" | "model", input: Json): HostCallRequest {
  if (name === "lambda") {
    const source = isJsonObject(input) && typeof input.source === "string" ? input.source : null;
    return { name, target: source === null ? null : normaliseSource(source), input };
  }
  const request = isJsonObject(input) && isJsonObject(input.request) ? input.request : null;
  const model = request !== null && typeof request.model === "string" ? request.model : null;
  return { name, target: model, input };
}

/**
 * Per invocation: counts its model calls and decides each call. Throws the
 * refusal; returns whether the call needs an approval before it runs.
 */
export class HostCallPolicy {
  private modelCalls = 0;

  constructor(private readonly policy: LoopPolicy) {}

  /** Refuses what the loop forbids; true when the call needs an approval first. */
  check(call: HostCallRequest): boolean {
    const { policy } = this;
    if (call.name === "lambda") {
      // A malformed source is left to the capability, which explains the expected shape.
      if (call.target === null) return false;
      const allow = policy.lambda.allow;
      if (allow !== null && !allow.includes(call.target)) {
        throw forbidden(policy.loop, `rayrun.lambda ${call.target}`);
      }
      return policy.lambda.approve.includes(call.target);
    }
    if (!policy.model.allow) throw forbidden(policy.loop, "rayrun.model");
    const models = policy.model.models;
    if (models !== null && (call.target === null || !models.includes(call.target))) {
      throw forbidden(
        policy.loop,
        call.target === null ? "rayrun.model without a model" : `rayrun.model with model ${call.target}`,
      );
    }
    if (this.modelCalls >= policy.model.maxCalls) {
      throw new HostCallError(
        HOST_CALL_FORBIDDEN,
        `loop "${policy.loop}" allows ${policy.model.maxCalls} rayrun.model call(s) per invocation`,
      );
    }
    this.modelCalls++;
    return policy.model.approve;
  }
}
