// Tool results on the MCP path: what `after` sees, how its return replaces the
// result, response projection and the refusal shape.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import type { Json, JsonObject } from "../../../shared/json";
import {
  afterInput,
  ERROR_META_KEY,
  isJsonPointer,
  projectResult,
  projectValue,
  refusal,
  replaceResult,
} from "../../../shared/mcp/tool-results";

const textResult: CallToolResult = { content: [{ type: "text", text: "hello" }] };
const structuredResult: CallToolResult = {
  content: [{ type: "text", text: '{"items":[1]}' }],
  structuredContent: { items: [1] },
};

describe("refusal", () => {
  it("is an error result whose text is the message and whose _meta carries the stable code", () => {
    const result = refusal({ code: "access_blocked", reason: "profile", message: "Blocked by the profile." });
    expect(result).toEqual({
      isError: true,
      content: [{ type: "text", text: "Blocked by the profile." }],
      _meta: {
        [ERROR_META_KEY]: { code: "access_blocked", reason: "profile", message: "Blocked by the profile." },
      },
    });
  });

  it("copies the metadata: changing it afterwards does not change the result", () => {
    const meta = { code: "approval_required", message: "Approve first.", approvalId: "apr_1" };
    const result = refusal(meta);
    meta.code = "changed";
    expect(result._meta?.[ERROR_META_KEY]).toMatchObject({ code: "approval_required", approvalId: "apr_1" });
  });
});

describe("afterInput", () => {
  it("is the structuredContent when the upstream sent one", () => {
    expect(afterInput(structuredResult)).toEqual({ items: [1] });
  });

  it("is { content } otherwise", () => {
    expect(afterInput(textResult)).toEqual({ content: [{ type: "text", text: "hello" }] });
  });
});

describe("replaceResult", () => {
  it("a replaced structuredContent regenerates the text content from it", () => {
    const replaced = replaceResult(structuredResult, { items: [2, 3] });
    expect(replaced).toEqual({
      content: [{ type: "text", text: JSON.stringify({ items: [2, 3] }) }],
      structuredContent: { items: [2, 3] },
    });
  });

  it("a non-object return becomes text only, never structuredContent", () => {
    for (const value of [[1, 2], "plain", 7, null, true]) {
      const replaced = replaceResult(structuredResult, value);
      expect(replaced).toEqual({ content: [{ type: "text", text: JSON.stringify(value) }] });
    }
  });

  it("without structuredContent upstream, a returned { content } of valid blocks replaces the content", () => {
    const content: Json[] = [
      { type: "text", text: "redacted" },
      { type: "image", data: "aGk=", mimeType: "image/png" },
    ];
    expect(replaceResult(textResult, { content })).toEqual({ content });
  });

  it("a returned { content } that is not valid MCP content is refused (null)", () => {
    expect(replaceResult(textResult, { content: [{ type: "text" }] })).toBeNull();
    expect(replaceResult(textResult, { content: [{ type: "bogus", text: "x" }] })).toBeNull();
    expect(replaceResult(textResult, { content: ["text"] })).toBeNull();
  });

  it("with structuredContent upstream, a returned { content } is structured data, not content blocks", () => {
    const value = { content: [{ type: "text", text: "x" }] };
    expect(replaceResult(structuredResult, value)).toEqual({
      content: [{ type: "text", text: JSON.stringify(value) }],
      structuredContent: value,
    });
  });

  it("any other object becomes structuredContent, with its text", () => {
    expect(replaceResult(textResult, { summary: "short" })).toEqual({
      content: [{ type: "text", text: '{"summary":"short"}' }],
      structuredContent: { summary: "short" },
    });
  });

  it("keeps the upstream's _meta", () => {
    const upstream: CallToolResult = { ...textResult, _meta: { "vendor/trace": "t1" } };
    expect(replaceResult(upstream, { a: 1 })?._meta).toEqual({ "vendor/trace": "t1" });
    expect(replaceResult(upstream, { content: [{ type: "text", text: "y" }] })?._meta).toEqual({
      "vendor/trace": "t1",
    });
    expect(replaceResult(textResult, { a: 1 })).not.toHaveProperty("_meta");
  });
});

describe("isJsonPointer", () => {
  it("accepts the root and slash-led pointers only", () => {
    for (const pointer of ["", "/", "/a", "/a/0", "/a~1b", "/~0"])
      expect(isJsonPointer(pointer), pointer).toBe(true);
    for (const pointer of ["a", "a/b", "#/a", " /a"]) expect(isJsonPointer(pointer), pointer).toBe(false);
  });
});

describe("projectValue", () => {
  const value: JsonObject = {
    id: 7,
    user: { name: "Ada", email: "ada@example.com", address: { city: "London", zip: "N1" } },
    items: [
      { id: 1, secret: "a" },
      { id: 2, secret: "b" },
    ],
    "a/b": 1,
    "m~n": 2,
    "": "empty key",
  };

  it("keeps only the members the pointers address, with their parents", () => {
    expect(projectValue(value, ["/id", "/user/address/city"])).toEqual({
      id: 7,
      user: { address: { city: "London" } },
    });
  });

  it("merges pointers that share a parent", () => {
    expect(projectValue(value, ["/user/name", "/user/address/zip"])).toEqual({
      user: { name: "Ada", address: { zip: "N1" } },
    });
  });

  it("skips pointers whose members are missing, and invalid pointers", () => {
    expect(projectValue(value, ["/nope", "/user/nope/x", "/id/deeper", "user", "/items/9"])).toEqual({});
  });

  it("array elements keep their index", () => {
    const projected = projectValue(value, ["/items/1/id"]);
    const items = projected.items;
    expect(Array.isArray(items)).toBe(true);
    if (!Array.isArray(items)) return;
    expect(items).toHaveLength(2);
    expect(items[1]).toEqual({ id: 2 });
    expect(0 in items).toBe(false);
  });

  it("array indices are canonical decimal: a leading zero or a sign addresses nothing", () => {
    expect(projectValue(value, ["/items/01", "/items/-1", "/items/+1"])).toEqual({});
  });

  it("decodes ~1 as / and ~0 as ~", () => {
    expect(projectValue(value, ["/a~1b", "/m~0n"])).toEqual({ "a/b": 1, "m~n": 2 });
  });

  it('"/" addresses the member with the empty name', () => {
    expect(projectValue(value, ["/"])).toEqual({ "": "empty key" });
  });

  it("the root pointer keeps everything", () => {
    expect(projectValue(value, ["/id", ""])).toEqual(value);
  });

  it("a member addressed whole and by a child is kept whole", () => {
    expect(projectValue(value, ["/user/address", "/user/address/city"])).toEqual({
      user: { address: { city: "London", zip: "N1" } },
    });
    expect(projectValue(value, ["/user/address/city", "/user/address"])).toEqual({
      user: { address: { city: "London", zip: "N1" } },
    });
  });

  it("does not change the projected value", () => {
    const before = JSON.stringify(value);
    projectValue(value, ["/user/address/city", "/items/0/id", "/user/address"]);
    expect(JSON.stringify(value)).toBe(before);
  });

  it("a member named __proto__ is projected as a member, never as the prototype", () => {
    const hostile = JSON.parse('{"__proto__": {"x": 1}, "a": 2}') as JsonObject;
    const out = projectValue(hostile, ["/__proto__/x"]);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"x":1}}');
  });

  it("inherited members are not members: a pointer to them addresses nothing", () => {
    expect(projectValue({ a: 1 }, ["/constructor", "/toString", "/a/constructor"])).toEqual({});
  });
});

describe("projectResult", () => {
  const result: CallToolResult = {
    content: [{ type: "text", text: "full" }],
    structuredContent: { keep: 1, drop: 2 },
    _meta: { m: 1 },
  };

  it("projects structuredContent and regenerates its text", () => {
    expect(projectResult(result, ["/keep"])).toEqual({
      content: [{ type: "text", text: '{"keep":1}' }],
      structuredContent: { keep: 1 },
      _meta: { m: 1 },
    });
  });

  it("leaves the result alone without a projection or without structuredContent", () => {
    expect(projectResult(result, null)).toBe(result);
    expect(projectResult(textResult, ["/keep"])).toBe(textResult);
  });

  it("an empty projection keeps no member", () => {
    expect(projectResult(result, []).structuredContent).toEqual({});
  });
});
