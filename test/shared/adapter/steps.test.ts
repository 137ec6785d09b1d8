// One adapter stage with the validation around it: the public input schema
// before the hook, the upstream input schema after `before`, the public output
// schema after `after`, and the sandbox's own failures, all failing closed.
import { describe, expect, it } from "vitest";
import type { Json, JsonObject } from "../../../shared/json";
import {
  runAdapterStep,
  schemaFailure,
  type RunnableAdapter,
  type StepRequest,
  type StepRun,
} from "../../../shared/adapter/steps";
import { err } from "../../../shared/result";
import type { AdapterStage } from "../../../shared/sandbox/types";
import { adapterCode, testContext } from "../sandbox/helpers";

const PUBLIC_INPUT: JsonObject = {
  type: "object",
  properties: { query: { type: "string" } },
  required: ["query"],
  additionalProperties: false,
};
const UPSTREAM_INPUT: JsonObject = {
  type: "object",
  properties: { q: { type: "string", minLength: 1 } },
  required: ["q"],
};
const PUBLIC_OUTPUT: JsonObject = {
  type: "object",
  properties: { items: { type: "array" } },
  required: ["items"],
};
const UPSTREAM_OUTPUT: JsonObject = {
  type: "object",
  properties: { total: { type: "integer" } },
  required: ["total"],
};

const adapter = (
  members: string,
  stages: AdapterStage[],
  publicContract: RunnableAdapter["publicContract"] = null,
): RunnableAdapter => ({ code: adapterCode(members), stages, publicContract });

/** `before` that logs and maps `query` to the upstream's `q` (empty when the query is "empty"). */
const MAPPER = adapter(
  `before({ arguments: args, context }) {
    context.log.info("mapping", { query: args.query });
    return { action: "continue", arguments: { q: args.query === "empty" ? "" : args.query } };
  }`,
  ["before"],
  { inputSchema: PUBLIC_INPUT },
);

const step = (req: Partial<StepRequest> & Pick<StepRequest, "adapter" | "stage">): Promise<StepRun> =>
  runAdapterStep({ upstream: {}, context: testContext(), ...req });

const before = (
  a: RunnableAdapter,
  args: Json,
  upstream: StepRequest["upstream"] = { inputSchema: UPSTREAM_INPUT },
) => step({ adapter: a, stage: "before", arguments: args, upstream });

const after = (a: RunnableAdapter, result: Json, upstream: StepRequest["upstream"] = {}) =>
  step({ adapter: a, stage: "after", result, upstream });

describe("before: the public input schema is checked before the hook runs", () => {
  it("valid arguments reach the hook and its transformed call is returned", async () => {
    const run = await before(MAPPER, { query: "v2" });
    expect(run).toMatchObject({
      ok: true,
      stage: "before",
      ran: true,
      value: { action: "continue", arguments: { q: "v2" } },
      logs: [{ level: "info", message: "mapping", data: { query: "v2" } }],
    });
    expect(run.fuelUsed).toBeGreaterThan(0);
  });

  it("arguments the public schema refuses fail with public_arguments_invalid; the hook never runs", async () => {
    const run = await before(MAPPER, { query: 42, extra: true });
    expect(run).toMatchObject({ ...err({ code: "public_arguments_invalid" }), stage: "before", ran: false });
    expect(run.logs).toEqual([]);
    expect(run.fuelUsed).toBe(0);
    if (run.ok) return;
    expect(run.error.errors?.map((e) => e.path)).toEqual(expect.arrayContaining(["/query"]));
  });

  it("without a public contract the upstream input schema is the public one", async () => {
    const noContract = { ...MAPPER, publicContract: null };
    const run = await before(noContract, { query: "x" });
    expect(run).toMatchObject({ ...err({ code: "public_arguments_invalid" }), ran: false });
    // Arguments that meet the upstream schema reach the hook.
    const passes = await before(noContract, { q: "x", query: "y" });
    expect(passes).toMatchObject({ ok: true, ran: true, value: { arguments: { q: "y" } } });
  });

  it("with neither schema any arguments reach the hook; missing arguments are {}", async () => {
    const echo = adapter(`before({ arguments: args }) { return { action: "continue", arguments: args }; }`, [
      "before",
    ]);
    expect(await before(echo, { anything: [1] }, {})).toMatchObject({
      ok: true,
      value: { arguments: { anything: [1] } },
    });
    expect(await step({ adapter: echo, stage: "before" })).toMatchObject({
      ok: true,
      value: { arguments: {} },
    });
  });
});

describe("before: what the hook returns is checked against the upstream input schema", () => {
  it("a transformed call the upstream would refuse fails with upstream_arguments_invalid, keeping the hook's logs", async () => {
    const run = await before(MAPPER, { query: "empty" });
    expect(run).toMatchObject({ ...err({ code: "upstream_arguments_invalid" }), ran: true });
    expect(run.logs).toHaveLength(1);
    if (run.ok) return;
    expect(run.error.errors?.map((e) => e.path)).toContain("/q");
    expect(run.error.message).toMatch(/upstream input schema/);
  });

  it("an approval's arguments are checked too", async () => {
    const asks = adapter(
      `before() { return { action: "approval", arguments: { wrong: 1 }, reason: "Deletes data." }; }`,
      ["before"],
    );
    expect(await before(asks, { q: "x" })).toMatchObject(err({ code: "upstream_arguments_invalid" }));
    const valid = adapter(
      `before() { return { action: "approval", arguments: { q: "x" }, reason: "Deletes data." }; }`,
      ["before"],
    );
    expect(await before(valid, { q: "x" })).toMatchObject({
      ok: true,
      value: { action: "approval", arguments: { q: "x" }, reason: "Deletes data." },
    });
  });

  it("a rejection carries no call and is not checked", async () => {
    const rejects = adapter(`before() { return { action: "reject", reason: "nope", message: "No." }; }`, [
      "before",
    ]);
    expect(await before(rejects, { q: "x" })).toMatchObject({
      ok: true,
      ran: true,
      value: { action: "reject", reason: "nope", message: "No." },
    });
  });

  it("an adapter without a before stage passes the arguments through, still checked against the upstream", async () => {
    const afterOnly = adapter(`after({ result }) { return { action: "return", result }; }`, ["after"], {
      inputSchema: { type: "object" },
    });
    expect(await before(afterOnly, { q: "x" })).toEqual({
      ok: true,
      value: { action: "continue", arguments: { q: "x" } },
      stage: "before",
      ran: false,
      logs: [],
      fuelUsed: 0,
      durationMs: 0,
    });
    expect(await before(afterOnly, { q: "" })).toMatchObject({
      ...err({ code: "upstream_arguments_invalid" }),
      ran: false,
    });
  });
});

describe("the sandbox's failures", () => {
  it("a before that returns an invalid outcome fails with hook_invalid_return", async () => {
    const invalid = adapter(`before() { return { action: "allow", arguments: {} }; }`, ["before"]);
    const run = await before(invalid, { q: "x" });
    expect(run).toMatchObject({ ...err({ code: "hook_invalid_return" }), ran: true, stage: "before" });
    if (run.ok) return;
    expect(run.error.message).toMatch(/allow/);
  });

  it("a hook that throws fails with hook_threw and keeps what it logged", async () => {
    const throws = adapter(
      `before({ context }) { context.log.warn("about to fail"); throw new Error("boom"); }`,
      ["before"],
    );
    const run = await before(throws, { q: "x" });
    expect(run).toMatchObject({ ...err({ code: "hook_threw" }), ran: true });
    expect(run.logs).toEqual([{ level: "warn", message: "about to fail" }]);
    if (run.ok) return;
    expect(run.error.message).toMatch(/boom/);
  });
});

describe("after: what `after` returns is checked against the public output schema", () => {
  const trims = adapter(
    `after({ result }) { return { action: "return", result: { items: result.rows ?? "none" } }; }`,
    ["after"],
  );

  it("with no output schema at all the hook's result is returned", async () => {
    const run = await after(trims, { rows: [1, 2] });
    expect(run).toMatchObject({
      ok: true,
      ran: true,
      value: { action: "return", result: { items: [1, 2] } },
    });
  });

  it("the public contract's output schema wins over the upstream's", async () => {
    const contracted = { ...trims, publicContract: { outputSchema: PUBLIC_OUTPUT } };
    expect(await after(contracted, { rows: [1] }, { outputSchema: UPSTREAM_OUTPUT })).toMatchObject({
      ok: true,
    });
    const run = await after(contracted, {}, { outputSchema: UPSTREAM_OUTPUT });
    expect(run).toMatchObject({ ...err({ code: "public_output_invalid" }), ran: true });
    if (run.ok) return;
    expect(run.error.errors?.length).toBeGreaterThan(0);
  });

  it("without a public contract the upstream output schema applies", async () => {
    expect(await after(trims, { rows: [] }, { outputSchema: PUBLIC_OUTPUT })).toMatchObject({ ok: true });
    expect(await after(trims, { rows: [] }, { outputSchema: UPSTREAM_OUTPUT })).toMatchObject({
      ...err({ code: "public_output_invalid" }),
      ran: true,
    });
  });

  it("a fail outcome carries no result and is not checked", async () => {
    const fails = adapter(
      `after() { return { action: "fail", reason: "empty", message: "Nothing found." }; }`,
      ["after"],
    );
    expect(await after(fails, {}, { outputSchema: UPSTREAM_OUTPUT })).toMatchObject({
      ok: true,
      value: { action: "fail", reason: "empty" },
    });
  });

  it("an adapter without an after stage returns the upstream result, still checked", async () => {
    expect(await after(MAPPER, { total: 3 }, { outputSchema: UPSTREAM_OUTPUT })).toMatchObject({
      ok: true,
      ran: false,
      value: { action: "return", result: { total: 3 } },
    });
    expect(await after(MAPPER, { total: "3" }, { outputSchema: UPSTREAM_OUTPUT })).toMatchObject({
      ...err({ code: "public_output_invalid" }),
      ran: false,
    });
    expect(await step({ adapter: MAPPER, stage: "after" })).toMatchObject({
      ok: true,
      value: { action: "return", result: null },
    });
  });

  it("the public input schema is not checked on after", async () => {
    const run = await step({
      adapter: trims,
      stage: "after",
      arguments: { query: 42 },
      result: { rows: [] },
    });
    expect(run).toMatchObject({ ok: true, ran: true });
  });
});

describe("validator keys", () => {
  it("a caller's immutable key names the validator: the same key reuses the first schema's", async () => {
    const key = `test-key-${crypto.randomUUID()}`;
    const echo = adapter(`before({ arguments: args }) { return { action: "continue", arguments: args }; }`, [
      "before",
    ]);
    const first = await step({
      adapter: { ...echo, publicContract: { inputSchema: { type: "object", required: ["a"] } } },
      stage: "before",
      arguments: { b: 1 },
      validatorKeys: { publicInput: key },
    });
    expect(first).toMatchObject(err({ code: "public_arguments_invalid" }));
    // A key is the id of one schema: under it the first validator answers.
    const second = await step({
      adapter: { ...echo, publicContract: { inputSchema: { type: "object", required: ["b"] } } },
      stage: "before",
      arguments: { b: 1 },
      validatorKeys: { publicInput: key },
    });
    expect(second).toMatchObject(err({ code: "public_arguments_invalid" }));
    // Without the key the schema itself decides.
    const unkeyed = await step({
      adapter: { ...echo, publicContract: { inputSchema: { type: "object", required: ["b"] } } },
      stage: "before",
      arguments: { b: 1 },
    });
    expect(unkeyed).toMatchObject({ ok: true });
  });
});

describe("schemaFailure", () => {
  it("is null without a schema or for a value that meets it", () => {
    expect(schemaFailure("public_arguments_invalid", undefined, { anything: 1 })).toBeNull();
    expect(schemaFailure("public_arguments_invalid", PUBLIC_INPUT, { query: "x" })).toBeNull();
  });

  it("names the code, a sentence for it and every failing path", () => {
    const failed = schemaFailure("upstream_arguments_invalid", UPSTREAM_INPUT, { q: 1 });
    expect(failed).toMatchObject({ code: "upstream_arguments_invalid" });
    expect(failed?.errors.map((e) => e.path)).toContain("/q");
    const messages = new Set(
      (["public_arguments_invalid", "upstream_arguments_invalid", "public_output_invalid"] as const).map(
        (code) => schemaFailure(code, UPSTREAM_INPUT, {})?.message,
      ),
    );
    expect(messages.size).toBe(3);
  });
});
