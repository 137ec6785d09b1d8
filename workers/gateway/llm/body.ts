// Step 2b: the body, in the provider's dialect, mapped to the neutral request
// the hook and the plugins see. Checked here, not left to the provider: a body
// that is not a request (no model, say) must not be sent anywhere.
import type { ProviderName } from "../../../shared/config/providers";
import { isJsonMediaType, SEND_JSON } from "../../../shared/http/media-type";
import { TOO_DEEP } from "../../../shared/http/problem";
import { isJsonObject, nestsDeeperThan, type JsonObject } from "../../../shared/json";
import { LIMITS } from "../../../shared/limits";
import { anthropicToNeutral, neutralToAnthropic } from "../../../shared/llm/anthropic";
import { neutralToOpenai, openaiToNeutral } from "../../../shared/llm/openai";
import type { NeutralRequest, RequestProblem } from "../../../shared/llm/request";
import type { Result } from "../../../shared/result";
import type { LlmContext, Step } from "./context";
import { llmProblem } from "./problem";

interface Dialect {
  toNeutral: (body: JsonObject) => Result<NeutralBody, RequestProblem[]>;
  fromNeutral: (request: NeutralRequest, stream: boolean) => JsonObject;
}

const DIALECTS: Record<ProviderName, Dialect> = {
  openai: { toNeutral: openaiToNeutral, fromNeutral: neutralToOpenai },
  anthropic: { toNeutral: anthropicToNeutral, fromNeutral: neutralToAnthropic },
};

/** The request, and whether the client asked for its answer as a stream. */
export interface NeutralBody {
  request: NeutralRequest;
  stream: boolean;
}

/** The body the provider takes for `request`, in its own dialect. */
export const providerBody = (provider: ProviderName, request: NeutralRequest, stream: boolean): JsonObject =>
  DIALECTS[provider].fromNeutral(request, stream);

export async function neutralBody(c: LlmContext, provider: ProviderName): Promise<Step<NeutralBody>> {
  const requestId = c.get("requestId");
  if (!isJsonMediaType(c.req.header("content-type"))) {
    return llmProblem("unsupported_media_type", SEND_JSON, requestId);
  }
  let body: unknown;
  try {
    body = JSON.parse(await c.req.text());
  } catch {
    return llmProblem("invalid_json", "The body is not valid JSON.", requestId);
  }
  if (!isJsonObject(body)) return llmProblem("invalid_request", "The body must be a JSON object.", requestId);
  if (nestsDeeperThan(body, LIMITS.jsonDepth)) {
    return llmProblem(TOO_DEEP.code, TOO_DEEP.detail, requestId, TOO_DEEP.extensions);
  }
  if (typeof body.model !== "string" || body.model === "") {
    const errors = [{ path: "/model", message: "must be a non-empty string naming the model" }];
    return llmProblem("invalid_request", "/model: must be a non-empty string naming the model", requestId, {
      errors,
    });
  }
  const mapped = DIALECTS[provider].toNeutral(body);
  if (!mapped.ok) {
    const detail = mapped.error.map((p) => `${p.path || "/"}: ${p.message}`).join("; ");
    return llmProblem("invalid_request", detail, requestId, { errors: mapped.error });
  }
  return mapped.value;
}
