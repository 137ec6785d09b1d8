// A plugin's `tool` hook at deploy time: `tool({})` runs once in a fresh
// sandbox, valid definitions are kept, refused ones are reported (and logged),
// and nothing `tool()` does stops the plugin from deploying.
import { describe, expect, it } from "vitest";
import {
  readPluginTools,
  toolReadRecords,
  type PluginToolsRead,
} from "../../../../workers/api/plugins/tool-definitions";
import { moduleCode } from "../../../shared/sandbox/code";

const NO_INDEXED: ReadonlySet<string> = new Set();

/** A plugin whose `tool()` returns the array literal `tools`. */
const plugin = (tools: string, prelude = "") =>
  moduleCode(`${prelude}\nreturn { default: { tool: () => ${tools} } };`);

const def = (id: string, extra = "") =>
  `{ id: ${JSON.stringify(id)}, description: "d ${id}", parameters: { type: "object" }, execute: async () => "ok", ${extra} }`;

const read = (code: string, indexed: ReadonlySet<string> = NO_INDEXED) =>
  readPluginTools(code, indexed, `seed-${crypto.randomUUID()}`);

describe("readPluginTools: what is kept", () => {
  it("keeps a valid definition's id, description and parameters; execute stays in the sandbox", async () => {
    const tools = await read(
      plugin(`[{
        id: "greet",
        description: "Greets someone",
        parameters: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        execute: async (args) => "hi " + args.name,
      }]`),
    );
    expect(tools).toMatchObject({
      tools: [
        {
          id: "greet",
          description: "Greets someone",
          parameters: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        },
      ],
      problems: [],
      threw: null,
      ignored: false,
    });
    expect(tools.fuelUsed).toBeGreaterThan(0);
  });

  it("a description that is not a string is null", async () => {
    const { tools } = await read(
      plugin(`[{ id: "t", description: 7, parameters: { type: "object" }, execute() {} }]`),
    );
    expect(tools).toEqual([{ id: "t", description: null, parameters: { type: "object" } }]);
  });

  it("tool() runs once per read, each read in a fresh sandbox", async () => {
    const code = plugin(
      `[{ id: "call_" + (++calls), parameters: { type: "object" }, execute() {} }]`,
      "let calls = 0;",
    );
    // Called twice in one sandbox, the id would say call_2; a reused sandbox would say so on the second read.
    expect((await read(code)).tools.map((t) => t.id)).toEqual(["call_1"]);
    expect((await read(code)).tools.map((t) => t.id)).toEqual(["call_1"]);
  });

  it("a later definition with the same id replaces the earlier one", async () => {
    const { tools, problems } = await read(
      plugin(
        `[${def("a")}, ${def("b")}, { id: "a", description: "second", parameters: { type: "object", properties: {} }, execute() {} }]`,
      ),
    );
    expect(problems).toEqual([]);
    expect(tools).toEqual([
      { id: "b", description: "d b", parameters: { type: "object" } },
      { id: "a", description: "second", parameters: { type: "object", properties: {} } },
    ]);
  });

  it("an id of 64 characters is accepted, one of 65 refused", async () => {
    const at = "t".repeat(64);
    const over = "t".repeat(65);
    const { tools, problems } = await read(plugin(`[${def(at)}, ${def(over)}]`));
    expect(tools.map((t) => t.id)).toEqual([at]);
    expect(problems).toMatchObject([{ index: 1, id: over, code: "invalid_tool" }]);
  });
});

describe("readPluginTools: what is refused, one problem per definition", () => {
  it("refuses malformed definitions with invalid_tool and keeps the valid ones", async () => {
    const { tools, problems } = await read(
      plugin(`[
        "not an object",
        { description: "no id", parameters: { type: "object" }, execute() {} },
        ${def("has space")},
        ${def("a/b")},
        { id: "no_execute", parameters: { type: "object" } },
        { id: "array_params", parameters: [], execute() {} },
        { id: "no_params", execute() {} },
        { id: "bad_schema", parameters: { type: "object", properties: 5 }, execute() {} },
        { id: "not_object", parameters: { type: "string" }, execute() {} },
        ${def("kept")},
      ]`),
    );
    expect(tools.map((t) => t.id)).toEqual(["kept"]);
    expect(problems.map((p) => [p.index, p.id, p.code])).toEqual([
      [0, null, "invalid_tool"],
      [1, null, "invalid_tool"],
      [2, "has space", "invalid_tool"],
      [3, "a/b", "invalid_tool"],
      [4, "no_execute", "invalid_tool"],
      [5, "array_params", "invalid_tool"],
      [6, "no_params", "invalid_tool"],
      [7, "bad_schema", "invalid_tool"],
      [8, "not_object", "invalid_tool"],
    ]);
    expect(problems[4]?.message).toMatch(/execute/);
    for (const problem of problems) expect(problem.message).not.toBe("");
  });

  it("protected ids and the workspace's indexed tool names are refused with protected_tool_id", async () => {
    const { tools, problems } = await read(
      plugin(`[${def("bash")}, ${def("browser_open")}, ${def("search_notes")}, ${def("bash_helper")}]`),
      new Set(["search_notes"]),
    );
    expect(tools.map((t) => t.id)).toEqual(["bash_helper"]);
    expect(problems.map((p) => [p.id, p.code])).toEqual([
      ["bash", "protected_tool_id"],
      ["browser_open", "protected_tool_id"],
      ["search_notes", "protected_tool_id"],
    ]);
    expect(problems[0]?.message).toMatch(/protected tool id/);
    expect(problems[2]?.message).toMatch(/indexed upstream tool/);
  });

  it("parameters using regex keywords are refused with regex_not_allowed", async () => {
    const { tools, problems } = await read(
      plugin(
        `[{ id: "rx", parameters: { type: "object", properties: { s: { type: "string", pattern: "^a+$" } } }, execute() {} }]`,
      ),
    );
    expect(tools).toEqual([]);
    expect(problems).toMatchObject([{ index: 0, id: "rx", code: "regex_not_allowed" }]);
  });
});

describe("readPluginTools: a tool() that gives nothing usable", () => {
  it("a throw gives zero tools and the sandbox's code", async () => {
    const result = await read(
      moduleCode(`return { default: { tool: () => { throw new Error("no tools today"); } } };`),
    );
    expect(result).toMatchObject({ tools: [], problems: [], ignored: false, threw: { code: "hook_threw" } });
    expect(result.threw?.message).toMatch(/no tools today/);
  });

  it("a value that is not an array is ignored: zero tools, no problems", async () => {
    for (const value of [`({ id: "odd" })`, `"tools"`, `undefined`, `null`]) {
      const result = await read(moduleCode(`return { default: { tool: () => ${value} } };`));
      expect(result, value).toMatchObject({ tools: [], problems: [], threw: null, ignored: true });
    }
  });

  it("an async tool() is awaited", async () => {
    const { tools } = await read(moduleCode(`return { default: { tool: async () => [${def("later")}] } };`));
    expect(tools.map((t) => t.id)).toEqual(["later"]);
  });
});

describe("toolReadRecords", () => {
  const at = {
    workspaceUid: "ws_1",
    target: "file:plugins/greeter.ts",
    plugin: "greeter",
    requestId: "req_1",
    revisionId: "rev_1",
  };
  const clean: PluginToolsRead = {
    tools: [{ id: "t", description: null, parameters: { type: "object" } }],
    problems: [],
    threw: null,
    ignored: false,
    durationMs: 2.5,
    fuelUsed: 900,
  };

  it("a clean read logs nothing", () => {
    expect(toolReadRecords(clean, at)).toEqual([]);
  });

  it("each refused definition is one refused plugin record at stage tool", () => {
    const records = toolReadRecords(
      {
        ...clean,
        problems: [
          { index: 0, id: "bash", code: "protected_tool_id", message: "bash is protected" },
          { index: 2, id: null, code: "invalid_tool", message: "tool 2 is not an object" },
        ],
      },
      at,
    );
    expect(records).toHaveLength(2);
    expect(records[0]).toMatchObject({
      workspaceUid: "ws_1",
      kind: "plugin",
      target: "file:plugins/greeter.ts",
      plugin: "greeter",
      toolUid: null,
      toolName: null,
      stage: "tool",
      channel: "active",
      outcome: "refused",
      code: "protected_tool_id",
      revisionId: "rev_1",
      requestId: "req_1",
      durationMs: 2.5,
      fuelUsed: 900,
      shadowDiffered: null,
    });
    expect(records[0]?.details?.message).toContain("bash is protected");
    expect(records[1]).toMatchObject({ outcome: "refused", code: "invalid_tool" });
  });

  it("a throw is recorded as threw, a timeout as abandoned", () => {
    const threw = toolReadRecords(
      { ...clean, tools: [], threw: { code: "hook_threw", message: "boom" } },
      at,
    );
    expect(threw).toMatchObject([{ outcome: "threw", code: "hook_threw" }]);
    expect(threw[0]?.details?.message).toContain("boom");
    const timedOut = toolReadRecords(
      { ...clean, tools: [], threw: { code: "hook_timeout", message: "slow" } },
      at,
    );
    expect(timedOut).toMatchObject([{ outcome: "abandoned", code: "hook_timeout" }]);
  });

  it("a non-array result is recorded as passed with tool_result_ignored", () => {
    expect(toolReadRecords({ ...clean, tools: [], ignored: true }, at)).toMatchObject([
      { outcome: "passed", code: "tool_result_ignored", stage: "tool" },
    ]);
  });

  it("records what a real read refused", async () => {
    const result = await read(plugin(`[${def("bash")}, ${def("ok")}]`));
    const records = toolReadRecords(result, at);
    expect(records.map((r) => [r.outcome, r.code])).toEqual([["refused", "protected_tool_id"]]);
    expect(records[0]?.fuelUsed).toBe(result.fuelUsed);
  });
});
