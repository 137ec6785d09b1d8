// What the steps of an /llm request share: the route's context (its bindings,
// the admitted caller and the request id the middlewares set) and the answer
// a step gives when the request ends there.
import type { Context } from "hono";
import type { AdmittedEnv } from "../middleware/auth";
import type { RequestIdEnv } from "../middleware/request-id";

export type LlmEnv = AdmittedEnv & RequestIdEnv;
export type LlmContext = Context<LlmEnv>;

/** A step's result: what the next step needs, or the request's answer (the later steps do not run). */
export type Step<T> = T | Response;

/** The workspace the path names. */
export const workspaceOf = (c: LlmContext): string => c.req.param("ws") ?? "";
