// compileToolAdapter: tool adapter source (TypeScript) → the compiled script
// and what it declares, or diagnostics. Order: cheap input checks, bundle
// (syntax, imports, exports), size, then one evaluation in the sandbox.
import type { PublicContract } from "../../../shared/hooks/public-contract";
import { sha256Hex } from "../../../shared/hooks/canonical-json";
import { utf8Bytes, type JsonObject } from "../../../shared/json";
import { LIMITS } from "../../../shared/limits";
import { err, ok, type Result } from "../../../shared/result";
import { inspectAdapter } from "../../../shared/sandbox";
import type { AdapterDefinition, AdapterStage, SandboxError } from "../../../shared/sandbox/types";
import { bundleAdapter } from "./bundle";
import { checkConfig } from "./config";
import { checkDefinition, evaluationDiagnostic } from "./definition";
import { diagnostic, type Diagnostic } from "./diagnostics";

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
  const config = checkConfig(input.config);
  // Config problems are independent of the source: report them together with the source's.
  const configProblems = config.ok ? [] : config.error;
  const fail = (problems: Diagnostic[]) => err([...configProblems, ...problems]);

  const sourceBytes = utf8Bytes(input.source);
  if (sourceBytes > LIMITS.sourceBytes) {
    return fail([
      diagnostic(
        "source_too_large",
        `source is ${sourceBytes} bytes; the limit is ${LIMITS.sourceBytes} bytes`,
      ),
    ]);
  }

  const bundled = await bundleAdapter(input.source);
  if (!bundled.ok) return fail(bundled.error);
  const code = bundled.value;
  const compiledBytes = utf8Bytes(code);
  if (compiledBytes > LIMITS.compiledBytes) {
    return fail([
      diagnostic(
        "compiled_too_large",
        `compiled JavaScript is ${compiledBytes} bytes; the limit is ${LIMITS.compiledBytes} bytes`,
      ),
    ]);
  }

  const inspected = await dependencies.inspect(code);
  if (!inspected.ok) return fail([evaluationDiagnostic(inspected.error, input.source)]);
  const definition = checkDefinition(inspected.value, input.source);
  if (!definition.ok) return fail(definition.error);
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
