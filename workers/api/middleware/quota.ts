import { workspaceObject } from "../../../durable-objects/workspace/rpc";
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
 * Where the caller's compilations are counted: workspace keys and users in their
 * workspace's object, under the key id or `user:<userId>`; the platform key in
 * an object of its own.
 */
const compilationCounter = (c: Context<ApiEnv>) => {
  const principal = c.get("principal");
  const holder = principal.kind === "platform" ? "platform" : principal.workspaceUid;
  return { stub: workspaceObject(c.env, holder), name: principal.keyId };
};

/** Counts one compilation attempt for the calling key or user (attempts count, refused or not). */
export async function chargeCompilation(c: Context<ApiEnv>): Promise<void> {
  const { stub, name } = compilationCounter(c);
  const charge = await stub.chargeCompilation(name, Date.now());
  if (!charge.ok) throw quotaProblem(charge.error, "compilations per API key or user");
}

/** The caller's compilations in the current hour, without counting one. */
export function compilationUsage(c: Context<ApiEnv>, now: number) {
  const { stub, name } = compilationCounter(c);
  return stub.compilationUsage(name, now);
}
