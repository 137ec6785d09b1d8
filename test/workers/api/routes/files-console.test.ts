// The file test console gives a lib function the `rayrun` namespace a request
// hook gets, its host calls answered by the body's mocks, so a hook using it can
// be tested (and so deployed) before it runs on the LLM path.
import { describe, expect, it } from "vitest";
import { deployFile, fileFixture, saveFile, testFile } from "./files-harness";

const HOOK = `export async function transform({ request }: { request: { messages: unknown[] } }) {
  rayrun.log.info("enriching", { n: request.messages.length });
  const found = await rayrun.lambda({ source: "lib/retriever.ts:enrich", args: { q: "pricing" } });
  return { found };
}`;

describe("file test console", () => {
  it("runs a lib function with the rayrun namespace: logs kept, the nested lambda answered by its mock", async () => {
    const f = await fileFixture();
    await saveFile(f, "lib/hook.ts", HOOK);
    const input = { request: { messages: [{ role: "user", content: "hi" }] } };
    const lookup = { source: "lib/retriever.ts:enrich", args: { q: "pricing" } };

    const run = await testFile(f, "lib/hook.ts", {
      export: "transform",
      input,
      hostCalls: [{ name: "lambda", args: lookup, result: { hits: ["doc about pricing"] } }],
    });
    expect(run).toMatchObject({ ok: true, value: { found: { hits: ["doc about pricing"] } } });
    expect(run.logs).toEqual([
      expect.objectContaining({ level: "info", message: "enriching", data: { n: 1 } }),
    ]);
  });
});

describe("file test console for plugins", () => {
  it("runs chat.params as the LLM path does: unset fields arrive as undefined", async () => {
    const f = await fileFixture();
    await saveFile(
      f,
      "plugins/observer.ts",
      `export default {
        "chat.params": (params) => ({ unset: Object.keys(params).filter((k) => params[k] === undefined).sort() }),
      };`,
    );
    const run = await testFile(f, "plugins/observer.ts", { hook: "chat.params", input: { model: "m" } });
    expect(run).toMatchObject({
      ok: true,
      value: { unset: ["maxOutputTokens", "options", "temperature", "topK", "topP"] },
    });
  });
});

describe("file test console for a plugin's tool hook", () => {
  it("reads tool() as deploy does: definitions as JSON, so a tool-only plugin can be tested and deployed", async () => {
    const f = await fileFixture();
    await saveFile(
      f,
      "plugins/counter.ts",
      `export default {
        tool: () => [{
          id: "count_words",
          description: "Counts words",
          parameters: { type: "object", properties: { text: { type: "string" } } },
          execute: (args) => ({ title: "count", output: String(args.text.split(" ").length) }),
        }],
      };`,
    );
    const run = await testFile(f, "plugins/counter.ts", { hook: "tool", input: {} });
    expect(run).toMatchObject({
      ok: true,
      value: [expect.objectContaining({ id: "count_words", description: "Counts words", executable: true })],
    });
    await deployFile(f, "plugins/counter.ts", 1, "active");
  });

  it("answers the definitions decoded: parameters as the JSON object the plugin wrote, not the sandbox's text", async () => {
    const f = await fileFixture();
    const parameters = {
      type: "object",
      properties: { text: { type: "string", description: "The text" } },
      required: ["text"],
      additionalProperties: false,
    };
    await saveFile(
      f,
      "plugins/word-count.ts",
      `export default {
        tool: () => [
          { id: "word_count", description: "Count words", parameters: ${JSON.stringify(parameters)}, execute: () => "" },
          { id: "no_schema", parameters: () => 1, execute: () => "" },
        ],
      };`,
    );
    const run = await testFile(f, "plugins/word-count.ts", { hook: "tool", input: {} });
    expect(run).toMatchObject({ ok: true });
    const [counted, broken] = (run as { value: Record<string, unknown>[] }).value;
    expect(counted).toEqual({ id: "word_count", description: "Count words", parameters, executable: true });
    // What cannot be decoded says why instead of passing the sandbox's text on.
    expect(broken).toMatchObject({
      id: "no_schema",
      parameters: null,
      problem: expect.stringContaining("parameters"),
    });
    expect(JSON.stringify(run)).not.toMatch(/"J\{|"E|"L"/);
  });
});
