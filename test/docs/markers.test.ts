// Every code block a reader can copy as a hook is a real file: marked, and equal
// to docs/snippets/<doc>/<name> byte for byte (its trailing newline aside); and
// no file there is left unshown. The other tests in this folder compile and run
// those files.
import { describe, expect, it } from "vitest";
import { CODE_LANGUAGES, codeBlocks, DOCS, docText, markers, SNIPPETS } from "./snippets";

/** The file extensions a marked block of each language may name. */
const EXTENSIONS: Record<string, string> = { ts: ".ts", typescript: ".ts", json: ".json" };

describe("the docs' code blocks", () => {
  it.each(DOCS)("%s.md: every hook-code block is a marked snippet equal to its file", (doc) => {
    const text = docText(doc);
    const problems: string[] = [];
    const blocks = codeBlocks(text);
    for (const block of blocks) {
      const where = `docs/${doc}.md:${block.line}`;
      if (block.marker === null) {
        if (CODE_LANGUAGES.has(block.language))
          problems.push(`${where}: a ${block.language} block without a marker`);
        continue;
      }
      if (block.indent > 0) problems.push(`${where}: a marked block must not be indented`);
      if (!block.marker.startsWith(`${doc}/`))
        problems.push(`${where}: ${block.marker} is not under ${doc}/`);
      const extension = EXTENSIONS[block.language];
      if (extension === undefined || !block.marker.endsWith(extension)) {
        problems.push(`${where}: a ${block.language || "plain"} block cannot show ${block.marker}`);
      }
      const file = SNIPPETS.get(block.marker);
      if (file === undefined) problems.push(`${where}: docs/snippets/${block.marker} does not exist`);
      else if (block.body !== file.replace(/\n$/, "")) {
        problems.push(`${where}: the block differs from docs/snippets/${block.marker}`);
      }
    }
    // A marker must sit right before a block, or it marks nothing.
    const marked = new Set(blocks.flatMap((block) => (block.marker === null ? [] : [block.marker])));
    for (const marker of markers(text)) {
      if (!marked.has(marker.path)) problems.push(`docs/${doc}.md:${marker.line}: a marker with no block`);
    }
    expect(problems).toEqual([]);
    expect(marked.size).toBeGreaterThan(0);
  });

  it("every file under docs/snippets is shown by its doc", () => {
    const shown = new Set(DOCS.flatMap((doc) => markers(docText(doc)).map((marker) => marker.path)));
    const unshown = [...SNIPPETS.keys()].filter((path) => !shown.has(path));
    expect(unshown).toEqual([]);
    expect(SNIPPETS.size).toBeGreaterThan(0);
  });
});

describe("the block parser", () => {
  it("reads a marker across the formatter's blank line, the language and the body", () => {
    const blocks = codeBlocks(
      ["<!-- snippet: a/x.ts -->", "", "```ts", "const a = 1;", "", "```", "```sh", "ls", "```"].join("\n"),
    );
    expect(blocks).toEqual([
      { line: 3, language: "ts", indent: 0, body: "const a = 1;\n", marker: "a/x.ts" },
      { line: 7, language: "sh", indent: 0, body: "ls", marker: null },
    ]);
  });

  it("sees an indented fence and a longer closing fence", () => {
    const blocks = codeBlocks(["1. step", "", "   ```ts", "   x();", "   ````"].join("\n"));
    expect(blocks).toEqual([{ line: 3, language: "ts", indent: 3, body: "x();", marker: null }]);
  });
});
