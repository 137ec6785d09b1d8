// Soak: 8 concurrent connections for 60 s of mixed traffic against a workspace
// set up by the same script as `npm start`'s demo (the example adapter active on
// search_release_notes, the plugin examples enabled, both providers on the
// demo provider behind the request hook): MCP tool calls through the official
// MCP client, LLM calls through the official OpenAI and Anthropic SDKs.
// Afterwards: no errors or hangs, every call has its run records (found by the
// request id each answer names, once the log batcher has flushed), and the
// workerd processes' memory before and after.
import Anthropic from "@anthropic-ai/sdk";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  apiOk,
  bounded,
  isObject,
  mcpClient,
  printFigures,
  raiseRateLimits,
  REQUEST_ID_META,
  refusalCode,
  server,
  workerdRss,
  type Workspace,
} from "./harness.ts";

const CONNECTIONS = 8;
const SECONDS = Number(process.env.RELIABILITY_SOAK_SECONDS ?? "60");
const CALL_TIMEOUT_MS = 20_000;
const WARMUP_SECONDS = 5;

type Kind = "mcp" | "openai" | "anthropic";
const ROTATION: readonly Kind[] = ["mcp", "openai", "mcp", "anthropic"];

interface Demo {
  workspace: string;
  key: string;
  tool: string;
}

// Plain .mjs without declarations: typed here, loaded through a string so tsc does not look for types.
const seedModule: string = "../scripts/seed-demo.mjs";
const { seedDemo } = (await import(seedModule)) as {
  seedDemo: (args: {
    url: string;
    upstreamUrl: string;
    providerUrl: string;
    key: string;
    stateDir: string;
  }) => Promise<Demo>;
};

interface RunRecord {
  requestId: string;
  kind: string;
  stage: string;
  plugin: string | null;
}

/** What a call's run records must show: one entry per hook and stage that runs on it. */
const signatureOf = (records: readonly RunRecord[]): Set<string> =>
  new Set(records.map((r) => `${r.kind}:${r.stage}:${r.plugin ?? ""}`));

/** Total RSS of a list of processes. */
const totalRss = (list: { rssMiB: number }[]) => list.reduce((total, p) => total + p.rssMiB, 0);

describe("soak", () => {
  let ws: Workspace;
  let toolName = "";
  let stateDir = "";
  const expected = new Map<Kind, Set<string>>();
  const figures: Record<string, string | number> = {};
  const notes: string[] = [];

  /** Every run record of the workspace since `since`, newest first, across pages. */
  async function recordsSince(since: string, requestId?: string): Promise<RunRecord[]> {
    const out: RunRecord[] = [];
    let cursor: string | null = null;
    do {
      const params = new URLSearchParams({ limit: "200", since });
      if (requestId !== undefined) params.set("requestId", requestId);
      if (cursor !== null) params.set("cursor", cursor);
      const page: { body: { items: RunRecord[]; nextCursor: string | null } } = await apiOk(
        "GET",
        `${ws.base}/hooks/logs?${params.toString()}`,
        { key: ws.key },
      );
      out.push(...page.body.items);
      cursor = page.body.nextCursor;
    } while (cursor !== null);
    return out;
  }

  interface Caller {
    mcp: Client;
    openai: OpenAI;
    anthropic: Anthropic;
  }

  async function caller(): Promise<Caller> {
    const { url } = server();
    return {
      mcp: await mcpClient(ws.uid, ws.key),
      openai: new OpenAI({
        apiKey: ws.key,
        baseURL: `${url}/llm/${ws.uid}/openai/v1`,
        maxRetries: 0,
        timeout: CALL_TIMEOUT_MS,
      }),
      anthropic: new Anthropic({
        apiKey: ws.key,
        baseURL: `${url}/llm/${ws.uid}/anthropic`,
        maxRetries: 0,
        timeout: CALL_TIMEOUT_MS,
      }),
    };
  }

  /** One call of `kind`: its request id, or why it failed. */
  async function call(c: Caller, kind: Kind, n: number): Promise<{ requestId: string } | { error: string }> {
    if (kind === "mcp") {
      const result = await c.mcp.callTool(
        { name: toolName, arguments: { query: `workers release ${n}` } },
        undefined,
        { timeout: CALL_TIMEOUT_MS },
      );
      const code = refusalCode(result);
      if (result.isError === true) return { error: `tool result isError (${code ?? "no code"})` };
      const id = isObject(result._meta) ? result._meta[REQUEST_ID_META] : undefined;
      return typeof id === "string" ? { requestId: id } : { error: "no _meta rayrun/requestId" };
    }
    const messages = [{ role: "user" as const, content: `hello ${n}` }];
    const { response } =
      kind === "openai"
        ? await c.openai.chat.completions
            .create({
              model: "demo",
              temperature: 0.7,
              messages,
              tools: [
                { type: "function", function: { name: "fs_read", parameters: { type: "object" } } },
                { type: "function", function: { name: "shell_exec", parameters: { type: "object" } } },
              ],
            })
            .withResponse()
        : await c.anthropic.messages.create({ model: "demo", max_tokens: 64, messages }).withResponse();
    const id = response.headers.get("x-rayrun-request-id");
    return id === null ? { error: "no x-rayrun-request-id" } : { requestId: id };
  }

  beforeAll(async () => {
    const { url, upstreamUrl, providerUrl, bootstrapKey } = server();
    stateDir = mkdtempSync(join(tmpdir(), "rayrun-reliability-soak-"));
    const demo = await seedDemo({ url, upstreamUrl, providerUrl, key: bootstrapKey, stateDir });
    ws = { uid: demo.workspace, key: demo.key, keyId: "", base: `/v1/workspaces/${demo.workspace}` };
    const { body: tool } = await apiOk<{ name: string | null; upstreamName: string }>(
      "GET",
      `${ws.base}/tools/${demo.tool}`,
      { key: ws.key },
    );
    toolName = tool.name ?? tool.upstreamName;

    // Per-key rate limits, where the API has them, as high as allowed: the soak measures errors, not quotas.
    notes.push(await raiseRateLimits(ws));

    // One call of each kind first: what its records show is what every soak call must show.
    const warm = await caller();
    const since = new Date(Date.now() - 5000).toISOString();
    const reference = new Map<Kind, string>();
    for (const kind of ["mcp", "openai", "anthropic"] as const) {
      const answer = await call(warm, kind, 0);
      if ("error" in answer) throw new Error(`reference ${kind} call failed: ${answer.error}`);
      reference.set(kind, answer.requestId);
    }
    await warm.mcp.close();
    for (let attempt = 0; attempt < 20 && expected.size < 3; attempt++) {
      await sleep(500);
      const records = await recordsSince(since);
      for (const [kind, id] of reference) {
        const own = records.filter((r) => r.requestId === id);
        if (own.length > 0) expected.set(kind, signatureOf(own));
      }
    }
    if (expected.size < 3) throw new Error("the reference calls' run records never appeared");
    for (const [kind, signature] of expected)
      notes.push(`${kind} call's records: ${[...signature].join(", ")}`);
  });

  afterAll(() => {
    rmSync(stateDir, { recursive: true, force: true });
    printFigures("Soak", [figures], notes);
  });

  /** CONNECTIONS callers, each sending calls back to back for `seconds`; returns the hangs. */
  async function traffic(
    seconds: number,
    calls: { kind: Kind; requestId: string }[],
    errors: string[],
  ): Promise<number> {
    const end = performance.now() + seconds * 1000;
    let n = 0;
    let hangs = 0;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async (_, connection) => {
        const c = await caller();
        let turn = connection;
        while (performance.now() < end) {
          const kind = ROTATION[turn++ % ROTATION.length] ?? "mcp";
          const outcome = await bounded(call(c, kind, ++n), CALL_TIMEOUT_MS + 2000);
          if (outcome.kind === "hang") hangs++;
          else if (outcome.kind === "error") errors.push(`${kind}: ${String(outcome.error).slice(0, 200)}`);
          else if ("error" in outcome.value) errors.push(`${kind}: ${outcome.value.error}`);
          else calls.push({ kind, requestId: outcome.value.requestId });
        }
        await c.mcp.close();
      }),
    );
    return hangs;
  }

  it(`runs ${CONNECTIONS} connections for ${SECONDS} s of MCP and LLM calls without errors, and every call has its run records`, async () => {
    // A few seconds of the same traffic first, not counted: memory is compared from a warm server
    // (compiled hooks cached, sandbox images built), not from one that has barely run.
    const warmCalls: { kind: Kind; requestId: string }[] = [];
    const warmErrors: string[] = [];
    const warmHangs = await traffic(WARMUP_SECONDS, warmCalls, warmErrors);
    const rssBefore = workerdRss(server().port);
    const rssSamples: number[] = [totalRss(rssBefore)];
    const sampler = setInterval(
      () => rssSamples.push(totalRss(workerdRss(server().port))),
      (SECONDS * 1000) / 4,
    );
    const since = new Date(Date.now() - 1000).toISOString();
    const calls: { kind: Kind; requestId: string }[] = [];
    const errors: string[] = [];
    const started = performance.now();
    const hangs = await traffic(SECONDS, calls, errors);
    clearInterval(sampler);
    const seconds = (performance.now() - started) / 1000;
    const rssAfter = workerdRss(server().port);
    rssSamples.push(totalRss(rssAfter));

    // The batcher writes a little after each call; wait until every call's records are there or time runs out.
    const byRequest = new Map<string, Set<string>>();
    const lostOf = () =>
      calls.filter(({ kind, requestId }) => {
        const seen = byRequest.get(requestId);
        return [...(expected.get(kind) ?? [])].some((entry) => !seen?.has(entry));
      });
    let lost = lostOf();
    const flushStarted = performance.now();
    for (let attempt = 0; attempt < 6 && lost.length > 0; attempt++) {
      await sleep(attempt === 0 ? 1000 : 2000);
      byRequest.clear();
      for (const record of await recordsSince(since)) {
        let set = byRequest.get(record.requestId);
        if (!set) byRequest.set(record.requestId, (set = new Set()));
        set.add(`${record.kind}:${record.stage}:${record.plugin ?? ""}`);
      }
      lost = lostOf();
    }
    const flushSeconds = (performance.now() - flushStarted) / 1000;
    const records = [...byRequest.values()].reduce((sum, set) => sum + set.size, 0);
    const count = (kind: Kind) => calls.filter((c) => c.kind === kind).length;

    // After the soak the workspace still answers as before.
    const after = await api("GET", `${ws.base}/config`, { key: ws.key });

    Object.assign(figures, {
      connections: CONNECTIONS,
      seconds: seconds.toFixed(1),
      requests: calls.length + errors.length + hangs,
      "per s": ((calls.length + errors.length + hangs) / seconds).toFixed(1),
      mcp: count("mcp"),
      openai: count("openai"),
      anthropic: count("anthropic"),
      errors: errors.length,
      "5xx": errors.filter((e) => /\b5\d\d\b/.test(e)).length,
      hangs,
      "records found": records,
      "calls without records": lost.length,
      "flush wait s": flushSeconds.toFixed(1),
    });
    notes.push(
      `workerd RSS before: ${rssBefore.map((p) => `${p.role} (pid ${p.pid}) ${p.rssMiB} MiB`).join(", ") || "unavailable"} (total ${totalRss(rssBefore)} MiB)`,
      `workerd RSS total during the soak: ${rssSamples.map((mib) => `${mib}`).join(" → ")} MiB (every ${SECONDS / 4} s)`,
      `warm-up (${WARMUP_SECONDS} s, not counted): ${warmCalls.length} calls, ${warmErrors.length} errors, ${warmHangs} hangs`,
      `workerd RSS after:  ${rssAfter.map((p) => `${p.role} (pid ${p.pid}) ${p.rssMiB} MiB`).join(", ") || "unavailable"} (total ${totalRss(rssAfter)} MiB)`,
      ...errors.slice(0, 10).map((e) => `error: ${e}`),
      ...lost
        .slice(0, 10)
        .map(
          (c) =>
            `no records for ${c.kind} call ${c.requestId}: found ${[...(byRequest.get(c.requestId) ?? [])].join(", ") || "none"}`,
        ),
    );

    expect(after.status).toBe(200);
    expect(calls.length).toBeGreaterThan(CONNECTIONS * SECONDS);
    expect({ errors: [...warmErrors, ...errors].slice(0, 10), hangs: warmHangs + hangs }).toEqual({
      errors: [],
      hangs: 0,
    });
    expect(lost.map((c) => `${c.kind} ${c.requestId}`)).toEqual([]);
    expect(rssBefore.length).toBeGreaterThan(0);
  });
});
