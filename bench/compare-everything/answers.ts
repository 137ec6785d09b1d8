// The client's answer to an elicitation, derived from the request alone so
// that both sides answer the same request identically: URL mode is accepted,
// and a form is filled from each field's default, first choice, or a fixed
// value of its type.
import type { ElicitRequest, ElicitResult } from "@modelcontextprotocol/sdk/types.js";

type Answer = string | number | boolean | string[];

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const FIXED_STRINGS: Record<string, string> = {
  email: "ada@example.com",
  uri: "https://example.com/ada",
  date: "1815-12-10",
  "date-time": "1815-12-10T00:00:00Z",
};

/** The first `const` of a list of titled choices (`oneOf` / `anyOf`). */
function firstConst(choices: unknown): string | undefined {
  if (!Array.isArray(choices)) return undefined;
  for (const choice of choices) if (isRecord(choice) && typeof choice.const === "string") return choice.const;
  return undefined;
}

function firstEnum(values: unknown): string | undefined {
  return Array.isArray(values) && typeof values[0] === "string" ? values[0] : undefined;
}

function answerFor(field: unknown): Answer | undefined {
  if (!isRecord(field)) return undefined;
  const fallback = field.default;
  if (typeof fallback === "string" || typeof fallback === "number" || typeof fallback === "boolean")
    return fallback;
  if (Array.isArray(fallback) && fallback.every((item) => typeof item === "string")) return fallback;
  const choice = firstConst(field.oneOf) ?? firstConst(field.anyOf) ?? firstEnum(field.enum);
  if (choice !== undefined) return choice;
  switch (field.type) {
    case "boolean":
      return true;
    case "integer":
    case "number":
      return typeof field.minimum === "number" ? field.minimum : 1;
    case "string":
      return FIXED_STRINGS[typeof field.format === "string" ? field.format : ""] ?? "Ada Lovelace";
    case "array": {
      const items = isRecord(field.items) ? field.items : {};
      const item = firstConst(items.anyOf) ?? firstConst(items.oneOf) ?? firstEnum(items.enum);
      return item === undefined ? [] : [item];
    }
    default:
      return undefined;
  }
}

export function elicitationAnswer(params: ElicitRequest["params"]): ElicitResult {
  if (params.mode === "url" || !("requestedSchema" in params)) return { action: "accept" };
  const content: Record<string, Answer> = {};
  for (const [name, field] of Object.entries(params.requestedSchema.properties)) {
    const answer = answerFor(field);
    if (answer !== undefined) content[name] = answer;
  }
  return { action: "accept", content };
}
