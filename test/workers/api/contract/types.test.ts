// Concrete type text; that the output is valid TypeScript is checked with
// esbuild in test/workers/api/compiler (which pays for loading esbuild).
import { describe, expect, it } from "vitest";
import { schemaToTypeDeclarations } from "../../../../shared/contract/schema-to-ts";
import { generateAdapterTypes } from "../../../../workers/api/contract/types";

const typeOf = (schema: unknown) =>
  schemaToTypeDeclarations(schema, "T", "doc").split("\n").slice(1).join("\n");

describe("schemaToTypeDeclarations", () => {
  it("renders objects with required, optional and closed properties", () => {
    expect(
      typeOf({
        type: "object",
        properties: { q: { type: "string", description: "the query" }, limit: { type: "integer" } },
        required: ["q"],
        additionalProperties: false,
      }),
    ).toBe("type T = {\n  /** the query */\n  q: string;\n  limit?: number;\n};");
  });

  it("adds an index signature to open objects and types additionalProperties alone", () => {
    expect(typeOf({ type: "object", properties: { a: { type: "boolean" } } })).toBe(
      "type T = {\n  a?: boolean;\n  [key: string]: unknown;\n};",
    );
    expect(typeOf({ type: "object", additionalProperties: { type: "number" } })).toBe(
      "type T = {\n  [key: string]: number;\n};",
    );
  });

  it("quotes property names that are not identifiers", () => {
    expect(
      typeOf({ type: "object", properties: { "a-b": {}, 'x"y': {}, $ok: {} }, additionalProperties: false }),
    ).toBe('type T = {\n  "a-b"?: unknown;\n  "x\\"y"?: unknown;\n  $ok?: unknown;\n};');
  });

  it("renders arrays, tuples (draft-07 and 2020-12), enums, consts and type arrays", () => {
    expect(typeOf({ type: "array", items: { type: ["string", "null"] } })).toBe(
      "type T = (string | null)[];",
    );
    expect(
      typeOf({
        type: "array",
        items: [{ type: "string" }, { type: "number" }],
        minItems: 1,
        additionalItems: false,
      }),
    ).toBe("type T = [string, number?];");
    expect(typeOf({ prefixItems: [{ type: "string" }], minItems: 1 })).toBe(
      "type T = [string, ...unknown[]];",
    );
    expect(typeOf({ enum: ["a", 1, null, true] })).toBe('type T = "a" | 1 | null | true;');
    expect(typeOf({ const: { k: [1, "x"] } })).toBe('type T = { k: [1, "x"] };');
  });

  it("renders anyOf/oneOf as unions, allOf as intersections, and nullable", () => {
    expect(typeOf({ anyOf: [{ type: "string" }, { type: "number" }] })).toBe("type T = string | number;");
    expect(typeOf({ oneOf: [{ const: "a" }, { const: "b" }] })).toBe('type T = "a" | "b";');
    expect(typeOf({ allOf: [{ type: "string" }, { minLength: 1 }] })).toBe("type T = string;");
    expect(typeOf({ type: "string", nullable: true })).toBe("type T = string | null;");
    expect(typeOf({ type: "string", anyOf: [{ const: "a" }, { const: "b" }] })).toBe(
      'type T = string & ("a" | "b");',
    );
  });

  it("turns local $refs into aliases, including recursive ones", () => {
    const schema = {
      type: "object",
      properties: { root: { $ref: "#/$defs/node" } },
      additionalProperties: false,
      $defs: {
        node: {
          type: "object",
          properties: { children: { type: "array", items: { $ref: "#/$defs/node" } }, self: { $ref: "#" } },
          additionalProperties: false,
        },
      },
    };
    expect(typeOf(schema)).toBe(
      [
        "type T = {",
        "  root?: T_node;",
        "};",
        "type T_node = {",
        "  children?: T_node[];",
        "  self?: T;",
        "};",
      ].join("\n"),
    );
  });

  it("falls back to unknown for remote refs, odd values and excessive depth", () => {
    expect(typeOf({ $ref: "https://example.com/x" })).toBe("type T = unknown;");
    expect(typeOf(true)).toBe("type T = unknown;");
    expect(typeOf(false)).toBe("type T = never;");
    expect(typeOf({ type: "wat" })).toBe("type T = unknown;");
    let deep: unknown = { type: "string" };
    for (let i = 0; i < 100; i++) deep = { type: "array", items: deep };
    expect(typeOf(deep)).toContain("unknown");
  });

  it("keeps descriptions from closing the doc comment", () => {
    const out = typeOf({
      type: "object",
      properties: { a: { description: "x */ y\nz" } },
      additionalProperties: false,
    });
    expect(out).toContain("/** x *\\/ y z */");
  });
});

describe("generateAdapterTypes", () => {
  const inputSchema = {
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    properties: { q: { type: "string" } },
    required: ["q"],
    additionalProperties: false,
  };

  it("declares Args and Result from the upstream schemas", () => {
    const dts = generateAdapterTypes({
      inputSchema,
      outputSchema: { type: "object", properties: { items: { type: "array" } }, required: ["items"] },
      toolName: "search",
    });
    expect(dts).toContain("type Args = {\n  q: string;\n};");
    expect(dts).toContain("type Result = {\n  items: unknown[];\n  [key: string]: unknown;\n};");
  });

  it("types Result as MCP content when the tool has no output schema", () => {
    expect(generateAdapterTypes({ inputSchema, toolName: "search" })).toContain(
      "type Result = { content: RayrunContentBlock[] };",
    );
  });

  it("declares defineToolAdapter, the definition, outcomes and context", () => {
    const dts = generateAdapterTypes({ inputSchema, toolName: "search" });
    expect(dts).toContain("declare function defineToolAdapter<A = Args, R = Result>(");
    expect(dts).toContain('apiVersion: "rayrun.hooks/v1";');
    expect(dts).toContain('| { action: "continue"; arguments: Args }');
    expect(dts).toContain('| { action: "reject"; reason: string; message: string }');
    expect(dts).toContain('| { action: "approval"; arguments: Args; reason: string };');
    expect(dts).toContain('| { action: "return"; result: R }');
    expect(dts).toContain('| { action: "fail"; reason: string; message: string };');
    for (const member of [
      "calledAt",
      "requestId",
      "workspaceUid",
      "connectionId",
      "toolUid",
      "toolName",
      "config",
    ]) {
      expect(dts).toContain(`readonly ${member}:`);
    }
    expect(dts).toContain("base64Encode(value: string): string;");
    expect(dts).toContain("base64Decode(value: string): string;");
    for (const level of ["debug", "info", "warn", "error"])
      expect(dts).toContain(`${level}(message: string, data?: unknown): void;`);
  });

  it("keeps a hostile tool name inside its comment", () => {
    const dts = generateAdapterTypes({ inputSchema, toolName: 'x */ declare const pwned: 1;\n// "' });
    expect(dts).not.toContain("\ndeclare const pwned");
    expect(dts.split("\n")[0]).toContain("*\\/");
  });
});
