// /llm's errors as the provider SDKs read them. Both official SDKs take
// `error.message` and `error.type` from an error body (OpenAI's also
// `error.code`); without them they report only "422 status code". A turn
// error brings its own `error`.
import { problemResponse, type Problem, type ProblemCode } from "../../../shared/http/problem";
import { REQUEST_ID_HEADER } from "../wire/headers";

export function llmProblem(
  code: ProblemCode,
  detail: string,
  requestId: string,
  extensions: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Response {
  return problemResponse({
    code,
    detail,
    extensions: { error: { type: code, code, message: detail }, ...extensions, requestId },
    headers: { ...headers, [REQUEST_ID_HEADER]: requestId },
  });
}

export const answerProblem = (problem: Problem, requestId: string): Response =>
  llmProblem(problem.code, problem.detail ?? "", requestId, problem.extensions, problem.headers);
