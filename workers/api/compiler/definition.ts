// Checks what evaluating the compiled module produced: the adapter definition
// the sandbox read from `export default defineToolAdapter({ … })`.
import type { Json } from "../../../shared/json";
import { validatePublicContract, type PublicContract } from "../contract/public-contract";
import { err, ok, type Result } from "../../../shared/result";
import type { AdapterDefinition, AdapterStage, SandboxError } from "../../../shared/sandbox/types";
import { diagnostic, locate, START, type Diagnostic } from "./diagnostics";

export const API_VERSION = "rayrun.hooks/v1";

export interface CheckedDefinition {
  publicContract: PublicContract | null;
  stages: AdapterStage[];
}

/** Where to point when a problem concerns the definition as a whole. */
const definitionStart = (source: string) => locate(source, /\bdefineToolAdapter\b/) ?? START;

export function checkDefinition(
  definition: AdapterDefinition,
  source: string,
): Result<CheckedDefinition, Diagnostic[]> {
  const problems: Diagnostic[] = [];
  if (definition.apiVersion !== API_VERSION) {
    const at = locate(source, /\bapiVersion\b/) ?? definitionStart(source);
    const found = definition.apiVersion === "" ? "none" : JSON.stringify(definition.apiVersion);
    problems.push(
      diagnostic("invalid_api_version", `apiVersion must be "${API_VERSION}" (found ${found})`, at),
    );
  }
  if (definition.stages.length === 0) {
    problems.push(
      diagnostic(
        "missing_stage",
        "the adapter must define `before`, `after`, or both",
        definitionStart(source),
      ),
    );
  }
  const contract = checkPublicContract(definition.publicContract, source);
  problems.push(...contract.problems);
  if (problems.length > 0) return err(problems);
  return ok({ publicContract: contract.value, stages: definition.stages });
}

function checkPublicContract(
  declared: Json | undefined,
  source: string,
): { value: PublicContract | null; problems: Diagnostic[] } {
  if (declared === undefined) return { value: null, problems: [] };
  const checked = validatePublicContract(declared);
  if (checked.ok) return { value: checked.value, problems: [] };
  const at = locate(source, /\bpublicContract\b/) ?? definitionStart(source);
  return {
    value: null,
    problems: checked.error.map((problem) =>
      diagnostic(problem.code, `publicContract${problem.pointer}: ${problem.message}`, at),
    ),
  };
}

/**
 * Evaluating the module failed: a top-level throw, a timeout, or a module the
 * sandbox refuses. The sandbox reports every shape problem as
 * `hook_invalid_module`; the ones that name a definition member keep that
 * member's code so the author sees the same code whichever side found it.
 */
export function evaluationDiagnostic(error: SandboxError, source: string): Diagnostic {
  if (error.code !== "hook_invalid_module") {
    return diagnostic("evaluation_failed", `evaluating the module failed (${error.code}): ${error.message}`);
  }
  if (/\bapiVersion\b/.test(error.message)) {
    return diagnostic(
      "invalid_api_version",
      `apiVersion must be "${API_VERSION}" (${error.message})`,
      definitionStart(source),
    );
  }
  if (/\bpublicContract\b/.test(error.message)) {
    const at = locate(source, /\bpublicContract\b/) ?? definitionStart(source);
    return diagnostic("invalid_public_contract", error.message, at);
  }
  return diagnostic("invalid_module", error.message, definitionStart(source));
}
