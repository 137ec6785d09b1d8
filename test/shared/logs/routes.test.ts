// GET …/tools/{tool}/hook/logs and GET /v1/workspaces/{ws}/hooks/logs.
import { describe, expect, it } from "vitest";
import type { RunView } from "../../../shared/logs/query";
import { call, createKey, createWorkspace, expectProblem, json } from "../../helpers/api";
import { fixture } from "../../workers/api/lifecycle/harness";
import { ndjsonLines, NO_CAPTURE, record, refusal, runRecord } from "./harness";

interface Page {
  items: RunView[];
  nextCursor: string | null;
}

const T0 = Date.UTC(2031, 4, 6, 10, 0, 0);
const at = (offsetMs: number) => new Date(T0 + offsetMs).toISOString();

/** A workspace with keys and `n` records one second apart (newest last), alternating two tools. */
async function workspaceWithRuns(n: number) {
  const ws = (await createWorkspace("logs")).uid;
  const reader = (await createKey(ws, ["hooks:read"], "rita")).key;
  const writer = (await createKey(ws, ["hooks:read", "hooks:write"], "wes")).key;
  const admin = (await createKey(ws, ["admin"], "ada")).key;
  const records = Array.from({ length: n }, (_, i) =>
    runRecord(ws, {
      at: at(i * 1000),
      requestId: `req_${i}`,
      toolUid: i % 2 === 0 ? "tool_a" : "tool_b",
      target: i % 2 === 0 ? "tool:tool_a" : "tool:tool_b",
    }),
  );
  await record(records);
  return { ws, reader, writer, admin, path: `/v1/workspaces/${ws}/hooks/logs` };
}

const get = async (path: string, key?: string) => json<Page>(await call("GET", path, { key }), 200);

describe("hook logs routes", () => {
  it("answers { items, nextCursor } newest first", async () => {
    const s = await workspaceWithRuns(3);
    const page = await get(s.path, s.reader);
    expect(page.items.map((r) => r.requestId)).toEqual(["req_2", "req_1", "req_0"]);
    expect(page.nextCursor).toBeNull();
    expect(page.items[0]).toMatchObject({
      at: at(2000),
      workspaceUid: s.ws,
      kind: "tool_adapter",
      target: "tool:tool_a",
      toolUid: "tool_a",
      toolName: "echo",
      stage: "before",
      channel: "active",
      outcome: "continue",
      code: null,
      revisionId: "rev_1",
      durationMs: 0.4,
      fuelUsed: 1200,
      shadowDiffered: null,
      loop: null,
      plugin: null,
    });
    expect(page.items[0]?.id).toMatch(/^log_/);
  });

  it("pages with limit and cursor through every record exactly once", async () => {
    const s = await workspaceWithRuns(7);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await call("GET", `${s.path}?limit=3${cursor ? `&cursor=${cursor}` : ""}`, {
        key: s.reader,
      });
      const next = res.headers.get("x-next-cursor");
      const page = await json<Page>(res, 200);
      expect(next).toBe(page.nextCursor);
      expect(res.headers.get("link")).toBe(
        page.nextCursor === null
          ? null
          : `</v1/workspaces/${s.ws}/hooks/logs?limit=3&cursor=${page.nextCursor}>; rel="next"`,
      );
      seen.push(...page.items.map((r) => r.requestId));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(seen).toEqual(["req_6", "req_5", "req_4", "req_3", "req_2", "req_1", "req_0"]);
  });

  it("limit defaults to 50 and is bounded to 1..200", async () => {
    const s = await workspaceWithRuns(52);
    expect((await get(s.path, s.reader)).items).toHaveLength(50);
    expect((await get(`${s.path}?limit=200`, s.reader)).items).toHaveLength(52);
    expect((await get(`${s.path}?limit=1`, s.reader)).items).toHaveLength(1);
    expect(await refusal(await call("GET", `${s.path}?limit=0`, { key: s.reader }))).toBe(
      "400 invalid_request",
    );
    expect(await refusal(await call("GET", `${s.path}?limit=201`, { key: s.reader }))).toBe(
      "400 invalid_request",
    );
  });

  it("filters by tool, target, stage, outcome, channel, kind, revision and request id", async () => {
    const ws = (await createWorkspace("filters")).uid;
    const reader = (await createKey(ws, ["hooks:read"])).key;
    const base = { at: at(0) };
    await record([
      runRecord(ws, { ...base, requestId: "plain" }),
      runRecord(ws, { ...base, requestId: "other-tool", toolUid: "tool_b", target: "tool:tool_b" }),
      runRecord(ws, { ...base, requestId: "after", stage: "after", outcome: "return" }),
      runRecord(ws, { ...base, requestId: "shadow", channel: "shadow", shadowDiffered: true }),
      runRecord(ws, {
        ...base,
        requestId: "refused",
        stage: "pipeline",
        outcome: "refused",
        code: "access_blocked",
        revisionId: null,
      }),
      runRecord(ws, { ...base, requestId: "rev2", revisionId: "rev_2" }),
      runRecord(ws, {
        ...base,
        requestId: "plugin",
        kind: "plugin",
        target: "file:plugins/redact.ts",
        plugin: "redact",
        stage: "tool.execute.before",
        outcome: "threw",
      }),
    ]);
    const ids = async (query: string) =>
      (await get(`/v1/workspaces/${ws}/hooks/logs?${query}`, reader)).items
        .map((r) => r.requestId)
        .toSorted();
    expect(await ids("tool=tool_b")).toEqual(["other-tool"]);
    expect(await ids("target=file:plugins/redact.ts")).toEqual(["plugin"]);
    expect(await ids("stage=after")).toEqual(["after"]);
    expect(await ids("outcome=refused")).toEqual(["refused"]);
    expect(await ids("channel=shadow")).toEqual(["shadow"]);
    expect(await ids("kind=plugin")).toEqual(["plugin"]);
    expect(await ids("revision=rev_2")).toEqual(["rev2"]);
    expect(await ids("requestId=refused")).toEqual(["refused"]);
    expect(await ids("stage=tool.execute.before&outcome=threw")).toEqual(["plugin"]);
    expect(await ids("stage=after&channel=shadow")).toEqual([]);
  });

  it("filters by time: since and until are inclusive and accept offsets", async () => {
    const s = await workspaceWithRuns(5);
    const ids = async (query: string) =>
      (await get(`${s.path}?${query}`, s.reader)).items.map((r) => r.requestId);
    expect(await ids(`since=${at(1000)}&until=${at(3000)}`)).toEqual(["req_3", "req_2", "req_1"]);
    expect(await ids(`since=${at(3500)}`)).toEqual(["req_4"]);
    expect(await ids(`until=${at(0)}`)).toEqual(["req_0"]);
    // 12:00:02+02:00 is 10:00:02Z.
    expect(await ids(`since=${encodeURIComponent("2031-05-06T12:00:02+02:00")}`)).toEqual([
      "req_4",
      "req_3",
      "req_2",
    ]);
  });

  it("bad filters are 400 with field errors", async () => {
    const s = await workspaceWithRuns(1);
    const cases: [string, string][] = [
      ["stage=middle", "/stage"],
      ["outcome=ok", "/outcome"],
      ["channel=canary", "/channel"],
      ["kind=lambda", "/kind"],
      ["since=yesterday", "/since"],
      ["until=2031-13-01T00:00:00Z", "/until"],
      ["cursor=abc", "/cursor"],
      ["format=xml", "/format"],
      ["limit=many", "/limit"],
      ["target=tool", "/target"],
      [`since=${at(2000)}&until=${at(1000)}`, "/until"],
    ];
    for (const [query, path] of cases) {
      const problem = await expectProblem(
        await call("GET", `${s.path}?${query}`, { key: s.reader }),
        400,
        "invalid_request",
      );
      expect({ query, errors: problem.errors }).toEqual({
        query,
        errors: [expect.objectContaining({ path })],
      });
    }
    const unknown = await expectProblem(
      await call("GET", `${s.path}?outcom=reject`, { key: s.reader }),
      400,
      "invalid_request",
    );
    expect(JSON.stringify(unknown.errors)).toContain("outcom");
    expect(await refusal(await call("GET", `${s.path}?stage=before&stage=after`, { key: s.reader }))).toBe(
      "400 invalid_request",
    );
  });

  it("answers NDJSON for ?format=ndjson: one record per line, the cursor in headers", async () => {
    const s = await workspaceWithRuns(3);
    const res = await call("GET", `${s.path}?format=ndjson&limit=2`, { key: s.reader });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/x-ndjson/);
    const text = await res.text();
    expect(text.endsWith("\n")).toBe(true);
    const lines = ndjsonLines<RunView>(text);
    expect(lines.map((r) => r.requestId)).toEqual(["req_2", "req_1"]);
    const cursor = res.headers.get("x-next-cursor");
    expect(cursor).toBe(lines[1]?.id);
    expect(res.headers.get("link")).toBe(
      `</v1/workspaces/${s.ws}/hooks/logs?format=ndjson&limit=2&cursor=${cursor}>; rel="next"`,
    );

    const last = await call("GET", `${s.path}?format=ndjson&limit=2&cursor=${cursor}`, { key: s.reader });
    expect(last.headers.get("x-next-cursor")).toBeNull();
    expect(last.headers.get("link")).toBeNull();
    expect(ndjsonLines<RunView>(await last.text()).map((r) => r.requestId)).toEqual(["req_0"]);
  });

  it("answers JSON by default and for ?format=json; Accept: application/x-ndjson asks for NDJSON", async () => {
    const s = await workspaceWithRuns(1);
    for (const query of ["", "?format=json"]) {
      const res = await call("GET", `${s.path}${query}`, {
        key: s.reader,
        headers: { accept: "application/json" },
      });
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      expect((await json<Page>(res, 200)).items).toHaveLength(1);
    }
    const negotiated = await call("GET", s.path, {
      key: s.reader,
      headers: { accept: "application/x-ndjson" },
    });
    expect(negotiated.headers.get("content-type")).toMatch(/^application\/x-ndjson/);
    await negotiated.body?.cancel();
    // An explicit format wins over Accept.
    const explicit = await call("GET", `${s.path}?format=json`, {
      key: s.reader,
      headers: { accept: "application/x-ndjson" },
    });
    expect(explicit.headers.get("content-type")).toMatch(/^application\/json/);
    await explicit.body?.cancel();
  });

  it("an empty NDJSON page is an empty body", async () => {
    const s = await workspaceWithRuns(0);
    const res = await call("GET", `${s.path}?format=ndjson`, { key: s.reader });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("");
  });

  it("returns captured details only to keys that may write hooks", async () => {
    const s = await workspaceWithRuns(1);
    const readerView = (await get(s.path, s.reader)).items[0];
    expect(readerView).toBeDefined();
    expect(readerView && "details" in readerView).toBe(false);
    const ndjson = await (await call("GET", `${s.path}?format=ndjson`, { key: s.reader })).text();
    expect(ndjson).not.toContain("details");
    expect(ndjson).not.toContain("Preparing search");

    for (const key of [s.writer, s.admin, undefined /* platform */]) {
      const item = (await get(s.path, key)).items[0];
      expect(item?.details).toEqual({
        message: "Preparing search",
        logs: [{ level: "info", message: "Preparing search", data: { query: "x" } }],
        arguments: { q: "x" },
      });
    }
  });

  it("a record stored without details shows details: null to writers", async () => {
    const s = await workspaceWithRuns(0);
    await record([runRecord(s.ws)], NO_CAPTURE);
    expect((await get(s.path, s.writer)).items[0]?.details).toBeNull();
  });

  it("a key of another workspace is refused with 403; no key is 401; an unknown workspace is 404", async () => {
    const s = await workspaceWithRuns(1);
    const other = await createWorkspace("other");
    const { key } = await createKey(other.uid, ["admin"]);
    expect(await refusal(await call("GET", s.path, { key }))).toBe("403 forbidden");
    expect(await refusal(await call("GET", s.path, { key: null }))).toBe("401 unauthorized");
    expect(await refusal(await call("GET", "/v1/workspaces/ws_nope/hooks/logs"))).toBe(
      "404 workspace_not_found",
    );
  });

  it("a tool's hook logs show only that hook's records", async () => {
    const f = await fixture();
    await record([
      runRecord(f.ws, { toolUid: f.toolUid, target: `tool:${f.toolUid}`, requestId: "mine", at: at(0) }),
      runRecord(f.ws, {
        toolUid: f.toolUid,
        target: `tool:${f.toolUid}`,
        requestId: "mine-after",
        stage: "after",
        at: at(1),
      }),
      runRecord(f.ws, { toolUid: "tool_other", target: "tool:tool_other", requestId: "theirs", at: at(2) }),
    ]);
    const page = await get(`${f.hook}/logs`, f.readKey);
    expect(page.items.map((r) => r.requestId)).toEqual(["mine-after", "mine"]);
    expect((await get(`${f.hook}/logs?stage=after`, f.readKey)).items.map((r) => r.requestId)).toEqual([
      "mine-after",
    ]);
    const ndjson = await call("GET", `${f.hook}/logs?format=ndjson`, { key: f.readKey });
    expect(ndjson.headers.get("content-type")).toMatch(/^application\/x-ndjson/);
    expect((await ndjson.text()).trimEnd().split("\n")).toHaveLength(2);
  });

  it("a tool's hook logs refuse the workspace-only filters and unknown tools", async () => {
    const f = await fixture();
    expect(await refusal(await call("GET", `${f.hook}/logs?tool=${f.toolUid}`, { key: f.readKey }))).toBe(
      "400 invalid_request",
    );
    expect(
      await refusal(
        await call("GET", `/v1/workspaces/${f.ws}/tools/tool_nope/hook/logs`, { key: f.readKey }),
      ),
    ).toBe("404 not_found");
    const other = await createWorkspace("other");
    const { key } = await createKey(other.uid, ["admin"]);
    expect(await refusal(await call("GET", `${f.hook}/logs`, { key }))).toBe("403 forbidden");
  });
});
