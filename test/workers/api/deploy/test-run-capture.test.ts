// Test-console runs are stored under the capture policy of production run
// records: a tool's test keeps details only when its service's payload capture
// is on and the workspace's detail policy is `capture`; a file's test (no
// service) only by the detail policy. Stored details are bounded like
// production ones; the HTTP answer always carries the whole run.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DETAILS_MAX_BYTES } from "../../../../shared/logs/details";
import type { RunDetails } from "../../../../shared/db/run-types";
import { createKey, createWorkspace, json } from "../../../helpers/api";
import { setConfig } from "../../../helpers/files";
import { fileFixture, LIB_SOURCE, saveFile, testFile } from "../routes/files-harness";
import { call, createService, newUpstream, refresh } from "../services/harness";

const LOGGING_ADAPTER = `
export default defineToolAdapter({
  apiVersion: "rayrun.hooks/v1",
  before: ({ arguments: a, context }) => {
    context.log.info("saw the text", { text: String(a.text).slice(0, 64) });
    return { action: "continue", arguments: { text: String(a.text) + "!" } };
  },
});
`;

interface StoredTestRun {
  stage: string;
  ok: number;
  counts: number;
  details: string | null;
  details_captured_at: string | null;
}

async function storedRun(id: string): Promise<StoredTestRun> {
  const row = await env.DB.prepare(
    "select stage, ok, counts, details, details_captured_at from hook_test_runs where id = ?",
  )
    .bind(id)
    .first<StoredTestRun>();
  if (row === null) throw new Error(`test run ${id} was not stored`);
  return row;
}

const detailsOf = (row: StoredTestRun): RunDetails | null =>
  row.details === null ? null : (JSON.parse(row.details) as RunDetails);

/** A workspace with one service (payload capture as given) and the `echo` tool's hook path. */
async function toolWorkspace(payloadCapture: boolean) {
  const ws = (await createWorkspace("test-capture")).uid;
  const service = await createService(ws, { name: "demo", url: newUpstream().url, payloadCapture });
  const echo = (await refresh(ws, service.uid)).tools.find((t) => t.upstreamName === "echo");
  if (!echo) throw new Error("the test upstream has no echo tool");
  const { key } = await createKey(ws, ["hooks:read", "hooks:write"], "alice");
  const hook = `/v1/workspaces/${ws}/tools/${echo.uid}/hook`;
  const etag = (await call("GET", hook, { key })).headers.get("etag") ?? "";
  await json(
    await call("PUT", `${hook}/draft`, {
      key,
      body: { source: LOGGING_ADAPTER, config: {} },
      headers: { "if-match": etag },
    }),
    200,
  );
  const test = async (text: string) =>
    json<{ id: string; ok: boolean; outcome: unknown; logs: unknown[] }>(
      await call("POST", `${hook}/test`, { key, body: { stage: "before", arguments: { text } } }),
      200,
    );
  return { ws, test };
}

describe("tool adapter test runs", () => {
  it("payload capture off: the run is stored without details, the answer still has everything", async () => {
    const w = await toolWorkspace(false);
    const run = await w.test("card 4111");
    expect(run).toMatchObject({
      ok: true,
      outcome: { action: "continue", arguments: { text: "card 4111!" } },
      logs: [{ level: "info", message: "saw the text", data: { text: "card 4111" } }],
    });
    const row = await storedRun(run.id);
    expect(row).toMatchObject({
      stage: "before",
      ok: 1,
      counts: 1,
      details: null,
      details_captured_at: null,
    });
    expect(JSON.stringify(row)).not.toContain("4111");
  });

  it("payload capture on but detail policy none: no details", async () => {
    const w = await toolWorkspace(true);
    await setConfig(w, { detailPolicy: "none" });
    const row = await storedRun((await w.test("card 4111")).id);
    expect(row).toMatchObject({ counts: 1, details: null, details_captured_at: null });
  });

  it("payload capture on and detail policy capture: the production record's details are stored", async () => {
    const w = await toolWorkspace(true);
    const row = await storedRun((await w.test("hello")).id);
    expect(detailsOf(row)).toEqual({
      logs: [{ level: "info", message: "saw the text", data: { text: "hello" } }],
      arguments: { text: "hello" },
      result: { text: "hello!" },
    });
    expect(Date.parse(row.details_captured_at ?? "")).not.toBeNaN();
  });

  it("stored details are bounded to the production size", async () => {
    const w = await toolWorkspace(true);
    const long = "x".repeat(3 * DETAILS_MAX_BYTES);
    const run = await w.test(long);
    // The caller gets the whole run back.
    expect(run.outcome).toEqual({ action: "continue", arguments: { text: `${long}!` } });
    const row = await storedRun(run.id);
    expect(new TextEncoder().encode(row.details ?? "").length).toBeLessThanOrEqual(DETAILS_MAX_BYTES);
    const details = detailsOf(row);
    expect(details?.truncated?.omitted).toEqual(expect.arrayContaining(["result", "arguments"]));
    expect(details?.logs?.[0]?.message).toBe("saw the text");
  });
});

describe("workspace file test runs", () => {
  it("detail policy capture (the default): input, return and logs are stored", async () => {
    const f = await fileFixture();
    await saveFile(f, "lib/p.ts", LIB_SOURCE("!"));
    const run = await testFile(f, "lib/p.ts", { input: { text: "hi" } });
    expect(detailsOf(await storedRun(run.id))).toEqual({
      arguments: { text: "hi" },
      result: { text: "hi!" },
    });
  });

  it("detail policy none: the run is stored without details", async () => {
    const f = await fileFixture();
    await setConfig(f, { detailPolicy: "none" });
    await saveFile(f, "lib/p.ts", LIB_SOURCE("!"));
    const run = await testFile(f, "lib/p.ts", { input: { text: "secret" } });
    expect(run).toMatchObject({ ok: true, value: { text: "secret!" } });
    const row = await storedRun(run.id);
    expect(row).toMatchObject({ stage: "main", ok: 1, counts: 1, details: null, details_captured_at: null });
    expect(JSON.stringify(row)).not.toContain("secret");
  });

  it("a failed run keeps its error as details under capture", async () => {
    const f = await fileFixture();
    await saveFile(f, "lib/t.ts", `export function main() { throw new Error("boom"); }`);
    const run = await testFile(f, "lib/t.ts", { input: 1 });
    expect(run.ok).toBe(false);
    const details = detailsOf(await storedRun(run.id));
    expect(details).toMatchObject({ arguments: 1, error: expect.stringContaining("boom") });
  });
});
