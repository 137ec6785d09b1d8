// The non-secret JSON config deployed with a revision (context.config).
import { isJsonObject, utf8Bytes, type JsonObject } from "../../../shared/json";
import { LIMITS } from "../../../shared/limits";
import { err, ok, type Result } from "../../../shared/result";
import { diagnostic, type Diagnostic } from "./diagnostics";

/** Absent config is `{}`; anything else must be a plain JSON object within LIMITS.configBytes. */
export function checkConfig(config: unknown): Result<JsonObject, Diagnostic[]> {
  if (config === undefined) return ok({});
  if (!isJsonObject(config) || !isPlainJson(config)) {
    return err([
      diagnostic("config_not_object", 'config must be a plain JSON object such as {"prefix": "x"}'),
    ]);
  }
  const bytes = utf8Bytes(JSON.stringify(config));
  if (bytes > LIMITS.configBytes) {
    return err([
      diagnostic(
        "config_too_large",
        `config is ${bytes} bytes of JSON; the limit is ${LIMITS.configBytes} bytes`,
      ),
    ]);
  }
  return ok(config);
}

/** Survives a JSON round trip unchanged: callers other than the HTTP body may pass class instances, NaN, … */
function isPlainJson(value: unknown): boolean {
  const stack: unknown[] = [value];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const current = stack.pop();
    if (current === null || typeof current === "string" || typeof current === "boolean") continue;
    if (typeof current === "number") {
      if (!Number.isFinite(current)) return false;
      continue;
    }
    if (Array.isArray(current)) {
      stack.push(...current);
      continue;
    }
    if (typeof current !== "object" || seen.has(current)) return false;
    seen.add(current);
    const proto = Object.getPrototypeOf(current);
    if (proto !== Object.prototype && proto !== null) return false;
    stack.push(...Object.values(current));
  }
  return true;
}
