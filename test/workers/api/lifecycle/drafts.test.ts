import { describe, expect, it } from "vitest";
import { expectProblem, json } from "../../../helpers/api";
import { LIMITS } from "../../../../shared/limits";
import {
  call,
  fixture,
  getHook,
  type HookBody,
  save,
  saveOk,
  type SaveBody,
  versionRows,
  workspaceStub,
} from "./harness";

const ADAPTER = `export default defineToolAdapter({apiVersion:"rayrun.hooks/v1",before(args){return {action:"continue",arguments:args}}})`;

describe("draft", () => {
  it("every indexed tool has an empty draft with an ETag before its first save", async () => {
    const f = await fixture();
    const res = await call("GET", f.hook, { key: f.readKey });
    const body = await json<HookBody>(res, 200);
    expect(res.headers.get("etag")).toBe('"g0.v0"');
    expect(body).toEqual({
      draft: {
        source: "",
        config: {},
        version: 0,
        etag: '"g0.v0"',
        formatted: false,
        updatedAt: null,
        actor: null,
        channel: null,
        note: null,
      },
      deployments: { active: null, shadow: null },
    });
  });

  it("a save without If-Match is refused with 428 and stores nothing", async () => {
    const f = await fixture();
    await expectProblem(await save(f, { source: "export const a = 1;" }), 428, "precondition_required");
    await expectProblem(await save(f, { source: "x" }, { etag: "*" }), 428, "precondition_required");
    expect(await versionRows(f.ws)).toEqual([]);
  });

  it("a save with a stale ETag is refused with 412 naming the current ETag", async () => {
    const f = await fixture();
    const first = await saveOk(f, '"g0.v0"', { source: "export const a = 1;" });
    expect(first.etag).toBe('"g0.v1"');
    const res = await save(f, { source: "export const a = 2;" }, { etag: '"g0.v0"' });
    expect(res.headers.get("etag")).toBe('"g0.v1"');
    const problem = await expectProblem(res, 412, "precondition_failed");
    expect(problem).toMatchObject({ etag: '"g0.v1"', version: 1 });
    expect(await versionRows(f.ws)).toHaveLength(1);
    // A weak tag never matches (strong comparison), even with the right value.
    await expectProblem(
      await save(f, { source: "export const a = 3;" }, { etag: 'W/"g0.v1"' }),
      412,
      "precondition_failed",
    );
  });

  it("of 20 concurrent saves on one ETag exactly one succeeds and history gains exactly one version", async () => {
    const f = await fixture();
    const { etag } = await saveOk(f, '"g0.v0"', { source: "export const base = 0;" });
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => save(f, { source: `export const racer = ${i};` }, { etag })),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 412)).toHaveLength(19);
    for (const r of responses) await r.body?.cancel();
    const rows = await versionRows(f.ws);
    expect(rows.map((r) => r.number)).toEqual([1, 2]);
    expect(rows[1]?.source).toMatch(/^export const racer = \d+;\n$/);
  });

  it("an identical save is a no-op: 200 with noop, no version, no quota spent", async () => {
    const f = await fixture();
    const saved = await saveOk(f, '"g0.v0"', { source: ADAPTER, config: { a: 1, b: [1, 2] } });
    const stub = workspaceStub(f.ws);
    const usageBefore = await stub.getUsage(f.ws, Date.now());
    // The same content, unformatted and with the config's keys in another order.
    const again = await saveOk(f, saved.etag, { source: ADAPTER, config: { b: [1, 2], a: 1 } });
    expect(again).toMatchObject({ noop: true, version: 1, etag: saved.etag });
    expect(again.draft.source).toBe(saved.draft.source);
    expect(await versionRows(f.ws)).toHaveLength(1);
    expect((await stub.getUsage(f.ws, Date.now())).draftSaves.used).toBe(usageBefore.draftSaves.used);
    // Saving the empty draft over the empty draft is a no-op too.
    const g = await fixture();
    expect(await saveOk(g, '"g0.v0"', { source: "" })).toMatchObject({ noop: true, version: 0 });
  });

  it("parseable source is stored formatted", async () => {
    const f = await fixture();
    const saved = await saveOk(f, '"g0.v0"', { source: ADAPTER });
    expect(saved.draft.formatted).toBe(true);
    expect(saved.draft.source).toBe(
      [
        "export default defineToolAdapter({",
        '  apiVersion: "rayrun.hooks/v1",',
        "  before(args) {",
        '    return { action: "continue", arguments: args };',
        "  },",
        "});",
        "",
      ].join("\n"),
    );
    expect((await versionRows(f.ws))[0]?.source).toBe(saved.draft.source);
  });

  it("incomplete source is stored unchanged and stays restorable", async () => {
    const f = await fixture();
    const incomplete = "export default defineToolAdapter({\n  before(args) {   return";
    const first = await saveOk(f, '"g0.v0"', { source: incomplete });
    expect(first.draft).toMatchObject({ source: incomplete, formatted: false });
    const second = await saveOk(f, first.etag, { source: "export const done = true;" });
    const restored = await json<SaveBody>(
      await call("POST", `${f.hook}/versions/1/restore`, {
        key: f.key,
        headers: { "if-match": second.etag },
      }),
      200,
    );
    expect(restored).toMatchObject({ version: 3, noop: false });
    expect(restored.draft).toMatchObject({ source: incomplete, formatted: false });
  });

  it("each version records actor, channel, note and time", async () => {
    const f = await fixture();
    const before = Date.now();
    const cli = await save(
      f,
      { source: "export const a = 1;", note: "first cut" },
      {
        etag: '"g0.v0"',
        headers: { "x-rayrun-channel": "cli" },
      },
    );
    const first = await json<SaveBody>(cli, 200);
    expect(first.draft).toMatchObject({ actor: "alice", channel: "cli", note: "first cut" });
    const web = await saveOk(f, cli.headers.get("etag") ?? "", {
      source: "export const a = 2;",
      channel: "web",
    });
    expect(web.draft).toMatchObject({ channel: "web", note: null });
    await saveOk(f, web.etag, { source: "export const a = 3;" });
    const v1 = await json(await call("GET", `${f.hook}/versions/1`, { key: f.readKey }), 200);
    expect(v1).toMatchObject({ version: 1, actor: "alice", channel: "cli", note: "first cut" });
    expect(Date.parse(String(v1.createdAt))).toBeGreaterThanOrEqual(before - 1000);
    const v3 = await json(await call("GET", `${f.hook}/versions/3`, { key: f.readKey }), 200);
    expect(v3).toMatchObject({ channel: "api" });
    const { body } = await getHook(f);
    expect(body.draft).toMatchObject({ version: 3, actor: "alice", channel: "api" });
    expect(Date.parse(body.draft.updatedAt ?? "")).toBeGreaterThanOrEqual(before - 1000);
  });

  it("source and config at their size limits are saved", async () => {
    const f = await fixture();
    const source = `//${"x".repeat(LIMITS.sourceBytes - 3)}\n`;
    const config = { k: "y".repeat(LIMITS.configBytes - '{"k":""}'.length) };
    expect(JSON.stringify(config)).toHaveLength(LIMITS.configBytes);
    const saved = await saveOk(f, '"g0.v0"', { source, config });
    expect(saved.version).toBe(1);
    expect(saved.draft.config).toEqual(config);
  });

  it("bad input is refused with 400 or 413 and stores nothing", async () => {
    const f = await fixture();
    const etag = '"g0.v0"';
    const bad: [unknown, number, string][] = [
      [{ source: 42 }, 400, "invalid_request"],
      [{}, 400, "invalid_request"],
      [{ source: "x", config: [1, 2] }, 400, "invalid_request"],
      [{ source: "x", config: "a=b" }, 400, "invalid_request"],
      [{ source: "x", config: null }, 400, "invalid_request"],
      [{ source: "x", note: 7 }, 400, "invalid_request"],
      [{ source: "x", channel: "ftp" }, 400, "invalid_request"],
      [{ source: "x", extra: true }, 400, "invalid_request"],
      ["{not json", 400, "invalid_json"],
      [
        { source: "x", config: { k: "y".repeat(LIMITS.configBytes - '{"k":""}'.length + 1) } },
        413,
        "payload_too_large",
      ],
      [{ source: `//${"x".repeat(LIMITS.sourceBytes - 2)}\n` }, 413, "payload_too_large"],
      [{ source: "x".repeat(LIMITS.requestBodyBytes + 1) }, 413, "payload_too_large"],
    ];
    for (const [body, status, code] of bad) {
      await expectProblem(await save(f, body, { etag }), status, code);
    }
    await expectProblem(
      await save(f, { source: "x" }, { etag, headers: { "x-rayrun-channel": "fax" } }),
      400,
      "invalid_request",
    );
    expect(await versionRows(f.ws)).toEqual([]);
    expect((await workspaceStub(f.ws).getUsage(f.ws, Date.now())).draftSaves.used).toBe(0);
  });
});
