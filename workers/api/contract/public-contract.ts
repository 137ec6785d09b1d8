// The publicContract an adapter may declare: what Direct and Code
// discovery show instead of the upstream definition. It is read once at compile
// time, so everything here must hold for every call of the revision.
import type { JsonObject } from "../../../shared/json";
import { err, ok, type Result } from "../../../shared/result";
import { findRegexKeywords } from "./regex-keywords";
import { checkSchemaStructure } from "./schema-structure";
import { getValidator } from "../../../shared/contract/validator";

export interface PublicContract {
  description?: string;
  inputSchema?: JsonObject;
  outputSchema?: JsonObject;
}

export type PublicContractProblemCode = "invalid_public_contract" | "regex_not_allowed";

export interface PublicContractProblem {
  code: PublicContractProblemCode;
  /** JSON Pointer from the publicContract object, e.g. `/inputSchema/properties/q/pattern`. */
  pointer: string;
  message: string;
}

const MEMBERS = new Set(["description", "inputSchema", "outputSchema"]);
const SCHEMA_MEMBERS = ["inputSchema", "outputSchema"] as const;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Checks a declared publicContract; `undefined` (none declared) is not a value this accepts. */
export function validatePublicContract(value: unknown): Result<PublicContract, PublicContractProblem[]> {
  const problems: PublicContractProblem[] = [];
  const invalid = (pointer: string, message: string) =>
    problems.push({ code: "invalid_public_contract", pointer, message });

  if (!isObject(value)) {
    invalid("", "publicContract must be an object");
    return err(problems);
  }
  for (const key of Object.keys(value)) {
    if (!MEMBERS.has(key))
      invalid(`/${key}`, `unknown member "${key}" (allowed: ${[...MEMBERS].join(", ")})`);
  }
  if (Object.hasOwn(value, "description") && typeof value.description !== "string") {
    invalid("/description", "description must be a string");
  }
  for (const member of SCHEMA_MEMBERS) {
    if (!Object.hasOwn(value, member)) continue;
    const schema = value[member];
    // MCP requires both tool schemas to describe an object (arguments and structuredContent are objects).
    if (!isObject(schema)) {
      invalid(`/${member}`, `${member} must be a JSON Schema object`);
      continue;
    }
    if (schema.type !== "object") invalid(`/${member}/type`, `${member} must have type "object" at the top`);
    const hits = findRegexKeywords(schema);
    for (const hit of hits) {
      problems.push({
        code: "regex_not_allowed",
        pointer: `/${member}${hit.pointer}`,
        message:
          hit.keyword === "format"
            ? `format "regex" is not allowed in ${member} (at ${hit.pointer}): regular expressions are not time-bounded`
            : `"${hit.keyword}" is not allowed in ${member} (at ${hit.pointer}): regular expressions are not time-bounded`,
      });
    }
    const structural = checkSchemaStructure(schema);
    for (const problem of structural)
      invalid(`/${member}${problem.pointer}`, `${member}: ${problem.message}`);
    if (structural.length === 0 && hits.length === 0) probeValidator(schema, member, invalid);
  }
  return problems.length > 0 ? err(problems) : ok(value as PublicContract);
}

/** The gateway will build exactly this validator; anything it chokes on is caught here, not per call. */
function probeValidator(
  schema: unknown,
  member: string,
  invalid: (pointer: string, message: string) => void,
) {
  const probe = getValidator(schema).validate({});
  if (!probe.ok) {
    const broken = probe.error.errors.find((issue) => issue.message.startsWith("schema error:"));
    if (broken !== undefined) invalid(`/${member}`, `${member}: ${broken.message}`);
  }
}
