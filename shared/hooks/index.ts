// Tool-adapter contract pieces shared by the api Worker and the gateway.
// Nothing here loads esbuild; the gateway may import all of it.
export { canonicalJson, schemaHash, sha256Hex } from "./canonical-json";
export { DEFAULT_DRAFT, schemaDraft } from "./drafts";
export { validatePublicContract } from "./public-contract";
export type { PublicContract, PublicContractProblem, PublicContractProblemCode } from "./public-contract";
export { findRegexKeywords } from "./regex-keywords";
export type { RegexKeyword, RegexKeywordHit } from "./regex-keywords";
export { checkSchemaStructure, MAX_SCHEMA_DEPTH } from "./schema-structure";
export type { SchemaProblem } from "./schema-structure";
export { generateAdapterTypes } from "./types";
export type { AdapterTypesInput } from "./types";
export { clearValidatorCache, getValidator } from "./validator";
export type { SchemaValidator, ValidationIssue } from "./validator";
