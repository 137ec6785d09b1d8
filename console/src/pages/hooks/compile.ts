// Compiling the saved draft (`POST …/compile`) and reading a `compile_failed` problem's
// diagnostics, which test and deploy answer with too.
import type { InferResponseType } from "hono/client";
import { jsonOf } from "../../api/client";
import type { ProblemError } from "../../api/problem";
import type { CompileDiagnostic } from "../../editor/server-diagnostics";
import { asProblem, type HookStore } from "./store";

export type CompileSummary = InferResponseType<HookStore["lifecycle"]["compile"]["$post"], 200>;

export function compileDiagnostics(problem: ProblemError): CompileDiagnostic[] | null {
  if (problem.code !== "compile_failed") return null;
  const list = problem.body.diagnostics;
  if (!Array.isArray(list)) return [];
  return list.filter(
    (d): d is CompileDiagnostic =>
      d !== null && typeof d === "object" && typeof d.line === "number" && typeof d.message === "string",
  );
}

/** Pins a compile failure's diagnostics on the draft they belong to (when the buffer is that draft). */
export function noteCompileProblem(store: HookStore, problem: ProblemError, version: number | undefined) {
  const diagnostics = compileDiagnostics(problem);
  if (diagnostics === null) return;
  store.compileReport.value = { version: version ?? store.draft.value?.version ?? 0, diagnostics };
}

export async function compileDraft(store: HookStore): Promise<CompileSummary> {
  try {
    const summary = await jsonOf(store.lifecycle.compile.$post());
    store.compileReport.value = { version: summary.version, diagnostics: [] };
    if ("exports" in summary) store.learnExports(summary.version, summary.exports);
    return summary;
  } catch (error) {
    const problem = asProblem(error);
    noteCompileProblem(store, problem, undefined);
    throw problem;
  } finally {
    void store.refreshQuotas();
  }
}
