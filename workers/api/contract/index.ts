// The tool-adapter contract as the api Worker checks it at compile time: public
// contracts, schema structure, the regex ban and the editor's generated types,
// beside the validators both Workers share (shared/contract).
export { canonicalJson, schemaHash, sha256Hex } from "../../../shared/canonical-json";
export { DEFAULT_DRAFT, schemaDraft } from "../../../shared/contract/drafts";
export { validatePublicContract } from "./public-contract";
export type { PublicContract, PublicContractProblem, PublicContractProblemCode } from "./public-contract";
export { findRegexKeywords } from "./regex-keywords";
export type { RegexKeyword, RegexKeywordHit } from "./regex-keywords";
export { checkSchemaStructure, MAX_SCHEMA_DEPTH } from "./schema-structure";
export type { SchemaProblem } from "./schema-structure";
export { generateAdapterTypes } from "./types";
export { fileKindTypes, generateFileTypes } from "./file-types";
export type { AdapterTypesInput } from "./types";
export { clearValidatorCache, getValidator } from "../../../shared/contract/validator";
export type { SchemaValidator, ValidationIssue } from "../../../shared/contract/validator";
