// Strict validation of what an adapter stage returns: only the
// documented actions, no extra keys, and readable reasons and messages. The
// value arrives as parsed JSON (the sandbox already refused non-JSON values).
import { isJsonObject, type Json, type JsonObject } from "../../json";
import { err, ok, type Result } from "../../result";
import type { AdapterStage, AfterOutcome, BeforeOutcome } from "../types";

/** Stable reason identifiers: lowercase, starts with a letter, at most 64 characters. */
export const REASON_ID = /^[a-z][a-z0-9_.-]{0,63}$/;
/** Longest `message` (reject/fail) and approval `reason`, in characters. */
export const OUTCOME_TEXT_CHARS = 1000;
// C0 controls other than tab and newline make text unreadable in logs and UIs.
function hasControlCharacters(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a) || c === 0x7f) return true;
  }
  return false;
}

type Shape = Record<string, "json-object" | "reason-id" | "message" | "readable">;

const BEFORE: Record<string, Shape> = {
  continue: { arguments: "json-object" },
  reject: { reason: "reason-id", message: "message" },
  approval: { arguments: "json-object", reason: "readable" },
};
const AFTER: Record<string, Shape> = {
  return: { result: "json-object" },
  fail: { reason: "reason-id", message: "message" },
};

function checkField(
  stage: AdapterStage,
  action: string,
  key: string,
  kind: Shape[string],
  value: Json,
): string | null {
  const where = `${stage} returned action "${action}" with`;
  switch (kind) {
    case "json-object":
      return isJsonObject(value) ? null : `${where} "${key}" that is not a JSON object`;
    case "reason-id":
      if (typeof value !== "string") return `${where} a non-string "${key}"`;
      return REASON_ID.test(value)
        ? null
        : `${where} reason ${JSON.stringify(value.slice(0, 80))}, which is not a stable identifier (lowercase letter first, then a-z 0-9 _ . -, at most 64 characters)`;
    case "message":
    case "readable": {
      if (typeof value !== "string") return `${where} a non-string "${key}"`;
      if (value.trim() === "") return `${where} an empty "${key}"`;
      if (value.length > OUTCOME_TEXT_CHARS)
        return `${where} a "${key}" longer than ${OUTCOME_TEXT_CHARS} characters`;
      if (hasControlCharacters(value)) return `${where} a "${key}" containing control characters`;
      return null;
    }
    default: {
      const unknownKind: never = kind;
      throw new Error(`unknown outcome field kind ${String(unknownKind)}`);
    }
  }
}

function validate(
  stage: AdapterStage,
  shapes: Record<string, Shape>,
  value: Json,
): Result<JsonObject, string> {
  const expected = Object.keys(shapes)
    .map((a) => `"${a}"`)
    .join(", ");
  if (!isJsonObject(value))
    return err(`${stage} must return an object like { action: ... } (one of ${expected})`);
  const action = value.action;
  if (typeof action !== "string")
    return err(`${stage} returned no string "action"; expected one of ${expected}`);
  const shape = Object.hasOwn(shapes, action) ? shapes[action] : undefined;
  if (!shape)
    return err(
      `${stage} returned unknown action ${JSON.stringify(action.slice(0, 80))}; expected one of ${expected}`,
    );
  for (const key of Object.keys(value)) {
    if (key !== "action" && !Object.hasOwn(shape, key)) {
      return err(
        `${stage} returned action "${action}" with unexpected key ${JSON.stringify(key.slice(0, 80))}`,
      );
    }
  }
  for (const [key, kind] of Object.entries(shape)) {
    const field = value[key];
    if (field === undefined) return err(`${stage} returned action "${action}" without "${key}"`);
    const problem = checkField(stage, action, key, kind, field);
    if (problem) return err(problem);
  }
  return ok(value);
}

export function validateBefore(value: Json): Result<BeforeOutcome, string> {
  const checked = validate("before", BEFORE, value);
  return checked.ok ? ok(checked.value as unknown as BeforeOutcome) : checked;
}

export function validateAfter(value: Json): Result<AfterOutcome, string> {
  const checked = validate("after", AFTER, value);
  return checked.ok ? ok(checked.value as unknown as AfterOutcome) : checked;
}
