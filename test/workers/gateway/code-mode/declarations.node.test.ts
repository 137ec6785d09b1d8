// Code discovery's declarations (workers/gateway/code-mode/declarations.ts),
// type-checked by the TypeScript compiler in Node: they compile on their own,
// code written against them compiles, and a wrong call fails as it would in
// the model's editor.
import { describe, expect, it } from "vitest";
import { codeModeDeclarations, type PublicTool } from "../../../../workers/gateway/code-mode/declarations";
import { typecheck } from "../../api/contract/typecheck";

const TOOLS: PublicTool[] = [
  {
    name: "search_release_notes",
    description: "Search public release notes.\nSecond line */ closes nothing.",
    inputSchema: {
      type: "object",
      properties: { query: { type: "string" }, limit: { type: "integer" } },
      required: ["query"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        items: { type: "array", items: { $ref: "#/$defs/item" } },
      },
      required: ["items"],
      $defs: { item: { type: "object", properties: { title: { type: "string" } }, required: ["title"] } },
    },
  },
  {
    name: "echo",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  },
  { name: "billing.create-invoice", description: "Bills", inputSchema: { type: "object" } },
];

const DECLARATIONS = codeModeDeclarations(TOOLS);

/** An execute body as a module function, the way the sandbox runs it. */
const body = (code: string) => `export async function main() {\n${code}\n}\n`;

const errors = (code: string) => {
  const out = typecheck(DECLARATIONS, { "execute.ts": body(code) });
  return { declarations: out["rayrun.d.ts"], global: out["*"], code: out["execute.ts"] };
};

describe("Code Mode declarations", () => {
  it("compile, and code that chains two tools compiles against them", () => {
    expect(
      errors(`
        const found = await tools.search_release_notes({ query: "v2" });
        const first: string = found.items[0]?.title ?? "";
        const echoed = await tools.echo({ text: first });
        const text = echoed.content[0]?.type === "text" ? echoed.content[0].text : "";
        await tools["billing.create-invoice"]({});
        try { await tools.echo({ text }); } catch (e) { if (e instanceof ToolError) console.log(e.code, e.reason ?? ""); }
        return text;`),
    ).toEqual({ declarations: [], global: [], code: [] });
  });

  it("a wrong argument, a missing one or an unknown tool fails the check", () => {
    const wrong = errors(`await tools.echo({ text: 1 });`).code;
    expect(wrong).toEqual([expect.stringMatching(/^TS2322:/)]);
    expect(errors(`await tools.search_release_notes({});`).code).toEqual([expect.stringMatching(/^TS2345:/)]);
    expect(errors(`await tools.nope({});`).code).toEqual([expect.stringMatching(/^TS2339:/)]);
  });

  it("descriptions become one-line JSDoc that cannot end the comment early", () => {
    expect(DECLARATIONS).toContain(
      "/** Search public release notes. Second line *\\/ closes nothing. */\n  search_release_notes(args: Search_release_notesArgs)",
    );
    expect(DECLARATIONS).toContain(`"billing.create-invoice"(args: Billing_create_invoiceArgs)`);
  });
});
