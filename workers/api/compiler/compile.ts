// compileToolAdapter: tool adapter source (TypeScript) → the compiled script
// and what it declares, or diagnostics. Order: cheap input checks, bundle
// (syntax, imports, exports), size, then one evaluation in the sandbox.
import type { PublicContract } from "../contract/public-contract";
import { sha256Hex } from "../../../shared/canonical-json";
import type { JsonObject } from "../../../shared/json";
import { err, ok, type Result } from "../../../shared/result";
import { inspectAdapter } from "../../../shared/sandbox";
import type { AdapterDefinition, AdapterStage, SandboxError } from "../../../shared/sandbox/types";
import { buildModule, withConfig } from "./build";
import { ADAPTER_MODE } from "./bundle";
import { checkDefinition, evaluationDiagnostic } from "./definition";
import type { Diagnostic } from "./diagnostics";

export interface CompileInput {
  source: string;
  /** Non-secret JSON object; absent means `{}`. */
  config?: unknown;
}

export interface CompiledAdapter {
  code: string;
  /** UTF-8 bytes of `code`. */
  compiledBytes: number;
  /** SHA-256 hex of `code`: the content address of a revision. */
  hash: string;
  publicContract: PublicContract | null;
  stages: AdapterStage[];
  config: JsonObject;
}

export interface CompileDependencies {
  /** Evaluates compiled code once and reads its definition (the sandbox; replaceable in tests). */
  inspect(code: string): Promise<Result<AdapterDefinition, SandboxError>>;
}

const defaults: CompileDependencies = { inspect: inspectAdapter };

export async function compileToolAdapter(
  input: CompileInput,
  dependencies: CompileDependencies = defaults,
): Promise<Result<CompiledAdapter, Diagnostic[]>> {
  const { config, bundle } = await buildModule(input, ADAPTER_MODE);
  if (!bundle.ok) return withConfig(config, bundle.error);
  const { code, compiledBytes } = bundle.value;

  const inspected = await dependencies.inspect(code);
  if (!inspected.ok) return withConfig(config, [evaluationDiagnostic(inspected.error, input.source)]);
  const definition = checkDefinition(inspected.value, input.source);
  if (!definition.ok) return withConfig(config, definition.error);
  if (!config.ok) return err(config.error);

  return ok({
    code,
    compiledBytes,
    hash: await sha256Hex(code),
    publicContract: definition.value.publicContract,
    stages: definition.value.stages,
    config: config.value,
  });
}
