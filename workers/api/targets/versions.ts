// A target's saved versions as the compile, deploy and test routes need them:
// loaded from the current generation, and compiled under the caller's quota.
import { workspaceObject } from "../../../durable-objects/workspace/rpc";
import type { Context } from "hono";
import { ProblemException } from "../../../shared/http/problem";
import type { Target } from "../../../shared/lifecycle/target";
import type { Result } from "../../../shared/result";
import type { Diagnostic } from "../compiler";
import { parseConfig } from "../lifecycle/draft";
import { getVersion } from "../lifecycle/versions";
import { chargeCompilation } from "../middleware/quota";
import type { ApiEnv } from "../types";

const VERSION_NUMBER = /^[1-9][0-9]{0,8}$/;

/** Whether `text` is a version number as paths and cursors carry it. */
export const isVersionNumber = (text: string): boolean => VERSION_NUMBER.test(text);

/** The route's `{n}`; 400 unless it is a version number. */
export function versionParam(c: Context<ApiEnv>): number {
  const n = c.req.param("n") ?? "";
  if (!isVersionNumber(n)) {
    throw new ProblemException({
      code: "invalid_request",
      detail: "A version number is a positive integer.",
    });
  }
  return Number(n);
}

/** Version `number` of the current generation with the head it was read under; 404 when it does not exist. */
export async function requireVersion(
  c: Context<ApiEnv>,
  t: { workspaceUid: string; target: Target },
  number: number,
) {
  const head = await workspaceObject(c.env, t.workspaceUid).getHead(t.workspaceUid, t.target);
  const row =
    number > head.version
      ? null
      : await getVersion(c.var.db, t.workspaceUid, t.target, head.generation, number);
  if (!row) throw new ProblemException({ code: "not_found", detail: `Version ${number} does not exist.` });
  return { head, row };
}

/** A stored version of the current generation (the draft's when `version` is absent). */
export async function loadVersion(
  c: Context<ApiEnv>,
  t: { workspaceUid: string; target: Target },
  version?: number,
) {
  const head = await workspaceObject(c.env, t.workspaceUid).getHead(t.workspaceUid, t.target);
  const number = version ?? head.version;
  if (number === 0) {
    throw new ProblemException({ code: "conflict", detail: "Nothing is saved yet: save a draft first." });
  }
  const row =
    number > head.version
      ? null
      : await getVersion(c.var.db, t.workspaceUid, t.target, head.generation, number);
  if (!row) throw new ProblemException({ code: "not_found", detail: `Version ${number} does not exist.` });
  return { head, row, config: parseConfig(row.config) };
}

/** Charges the caller's compilation quota (attempts count), then compiles; diagnostics answer 422. */
export async function compileVersion<T>(
  c: Context<ApiEnv>,
  compile: () => Promise<Result<T, Diagnostic[]>>,
): Promise<T> {
  await chargeCompilation(c);
  const compiled = await compile();
  if (!compiled.ok) {
    throw new ProblemException({
      code: "compile_failed",
      detail: compiled.error[0]?.message ?? "The hook does not compile.",
      extensions: { diagnostics: compiled.error },
    });
  }
  return compiled.value;
}
