// The docs' snippets type-check, strictly, against the declarations the editor
// loads beside them: an adapter against the generated types of the tool it is
// written for, a lib file against the lib declarations, a plugin against the
// plugin declarations. A reader who pastes one into the console's editor sees
// no error. Node-side (the TypeScript compiler reads its lib files from disk).
import { describe, expect, it } from "vitest";
import { generateAdapterTypes } from "../../workers/api/contract";
import { fileKindTypes } from "../../workers/api/contract/file-types";
import { repoFile, repoFiles, typecheck } from "../workers/api/contract/typecheck";
import { ADAPTER_TOOLS } from "./tool-schemas";

const clean = (diagnostics: Record<string, string[]>) =>
  Object.fromEntries(Object.entries(diagnostics).filter(([, list]) => list.length > 0));

/** The `.ts` snippets of one doc, by their path under docs/snippets. */
const snippets = (doc: string): Record<string, string> =>
  Object.fromEntries(
    repoFiles(`docs/snippets/${doc}`, ".ts").map((path) => [
      path.slice("docs/snippets/".length),
      repoFile(path),
    ]),
  );

describe("the docs' snippets type-check strictly against the editor's declarations", () => {
  it("each adapter, against the generated types of the tool it is written for", () => {
    const adapters = snippets("adapters");
    expect(Object.keys(adapters).toSorted()).toEqual(Object.keys(ADAPTER_TOOLS).toSorted());
    for (const [path, source] of Object.entries(adapters)) {
      const tool = ADAPTER_TOOLS[path];
      if (tool === undefined) throw new Error(`no tool for ${path}`);
      const declarations = generateAdapterTypes({
        inputSchema: tool.inputSchema,
        ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
        toolName: tool.name,
      });
      expect(clean(typecheck(declarations, { [path]: source })), path).toEqual({});
    }
  });

  it("each request hook, as a lib file", () => {
    const files = snippets("request-hooks");
    expect(Object.keys(files).length).toBeGreaterThan(0);
    expect(clean(typecheck(fileKindTypes("lib"), files))).toEqual({});
  });

  it("each plugin, as a plugins file", () => {
    const files = snippets("plugins");
    expect(Object.keys(files).length).toBeGreaterThan(0);
    expect(clean(typecheck(fileKindTypes("plugin"), files))).toEqual({});
  });

  it("a wrong field is an error, so the checks above are not vacuous", () => {
    const search = snippets("adapters")["adapters/search.ts"] ?? "";
    const broken = search.replace("item.score >= minScore", "item.rank >= minScore");
    expect(broken).not.toBe(search);
    const declarations = generateAdapterTypes({
      inputSchema: ADAPTER_TOOLS["adapters/search.ts"]?.inputSchema,
      outputSchema: ADAPTER_TOOLS["adapters/search.ts"]?.outputSchema,
      toolName: "search_release_notes",
    });
    expect(JSON.stringify(typecheck(declarations, { "search.ts": broken }))).toContain(
      "Property 'rank' does not exist",
    );
  });
});
