import type { Context } from "hono";
import { ProblemException } from "../../../shared/http/problem";
import type { QuotaRefusal } from "../../../shared/lifecycle/quota";
import type { ApiEnv } from "../types";

/** The 429 a refused quota answers with: `Retry-After` plus the window's reset time. */
export function quotaProblem(refusal: QuotaRefusal, what: string): ProblemException {
  return new ProblemException({
    code: "rate_limited",
    detail: `At most ${refusal.limit} ${what} per hour; the window resets at ${refusal.resetAt}.`,
    extensions: { ...refusal },
    headers: { "retry-after": String(refusal.retryAfterSeconds) },
  });
}

/**
 * Counts one compilation attempt for the calling key (attempts count,
 * says, refused or not). Workspace keys are counted in their workspace's object;
 * the platform key in an object of its own.
 */
export async function chargeCompilation(c: Context<ApiEnv>): Promise<void> {
  const principal = c.get("principal");
  const holder = principal.kind === "key" ? principal.workspaceUid : "platform";
  const charge = await c.env.WORKSPACE.getByName(holder).chargeCompilation(principal.keyId, Date.now());
  if (!charge.ok) throw quotaProblem(charge, "compilations per API key");
}
