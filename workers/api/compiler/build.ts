// The checks every kind of hook source goes through before its evaluation:
// config, source size, bundle (syntax, imports, exports), compiled size.
import type { JsonObject } from "../../../shared/json";
import { utf8Bytes } from "../../../shared/json";
import { LIMITS } from "../../../shared/limits";
import { err, ok, type Err, type Result } from "../../../shared/result";
import { bundleModule, type BundleMode } from "./bundle";
import { checkConfig } from "./config";
import { diagnostic, type Diagnostic } from "./diagnostics";

export interface Bundle {
  code: string;
  /** UTF-8 bytes of `code`. */
  compiledBytes: number;
}

export interface Build {
  config: Result<JsonObject, Diagnostic[]>;
  bundle: Result<Bundle, Diagnostic[]>;
}

/**
 * Config problems are independent of the source, so they are reported
 * together with (before) the source's.
 */
export const withConfig = (config: Build["config"], problems: Diagnostic[]): Err<Diagnostic[]> =>
  err([...(config.ok ? [] : config.error), ...problems]);

export async function buildModule(
  input: { source: string; config?: unknown },
  mode: BundleMode,
): Promise<Build> {
  const config = checkConfig(input.config);
  const sourceBytes = utf8Bytes(input.source);
  if (sourceBytes > LIMITS.sourceBytes) {
    const message = `source is ${sourceBytes} bytes; the limit is ${LIMITS.sourceBytes} bytes`;
    return { config, bundle: err([diagnostic("source_too_large", message)]) };
  }
  const bundled = await bundleModule(input.source, mode);
  if (!bundled.ok) return { config, bundle: bundled };
  const code = bundled.value;
  const compiledBytes = utf8Bytes(code);
  if (compiledBytes > LIMITS.compiledBytes) {
    const message = `compiled JavaScript is ${compiledBytes} bytes; the limit is ${LIMITS.compiledBytes} bytes`;
    return { config, bundle: err([diagnostic("compiled_too_large", message)]) };
  }
  return { config, bundle: ok({ code, compiledBytes }) };
}
