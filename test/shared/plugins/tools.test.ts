// Pure helpers of the plugin tool path (shared/plugins/protected.ts and
// execute-hooks.ts): protected ids and how a plugin's `output` replaces a
// result's text content.
import { describe, expect, it } from "vitest";
import { replaceText, resultText } from "../../../workers/gateway/plugins/execute-hooks";
import { isProtectedToolId, PROTECTED_TOOL_IDS, refusedToolId } from "../../../shared/plugins/protected";

describe("protected tool ids", () => {
  it("covers the documented list and the browser_* family", () => {
    for (const id of PROTECTED_TOOL_IDS) expect(isProtectedToolId(id)).toBe(true);
    expect(isProtectedToolId("browser_click")).toBe(true);
    expect(isProtectedToolId("greet")).toBe(false);
  });

  it("treats the workspace's indexed tool names as protected", () => {
    expect(refusedToolId("echo", new Set(["echo"]))).toBe(true);
    expect(refusedToolId("greet", new Set(["echo"]))).toBe(false);
  });
});

describe("output replaces the text content", () => {
  it("joins text blocks and replaces them with one, keeping other blocks", () => {
    const result = {
      content: [
        { type: "text" as const, text: "a" },
        { type: "image" as const, data: "AA==", mimeType: "image/png" },
        { type: "text" as const, text: "b" },
      ],
      structuredContent: { x: 1 },
    };
    expect(resultText(result)).toBe("a\nb");
    expect(replaceText(result, "z")).toEqual({
      content: [
        { type: "text", text: "z" },
        { type: "image", data: "AA==", mimeType: "image/png" },
      ],
      structuredContent: { x: 1 },
    });
    expect(replaceText({ content: [] }, "new")).toEqual({ content: [{ type: "text", text: "new" }] });
  });
});
