// Races through the public API: concurrent draft saves, restores, deploys and
// approval decisions against one tool, where the API promises one winner (an
// ETag, a pending approval, an approved call) or promises nothing is lost or
// duplicated (versions, revisions); and a key revoked while traffic runs on
// /mcp and /llm, after which every request with it must be refused.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  apiOk,
  createKey,
  createWorkspace,
  isObject,
  limits,
  parseJson,
  printFigures,
  putSecret,
  registerService,
  saveDraft,
  send,
  server,
  updateConfig,
  type Figures,
  type Workspace,
} from "./harness.ts";

const adapter = (suffix: string) => `
export default defineToolAdapter({
  apiVersion: "rayrun.hooks/v1",
  before: ({ arguments: a }) => ({ action: "continue", arguments: { text: String(a.text) + ${JSON.stringify(suffix)} } }),
});
`;

interface VersionItem {
  version: number;
  note: string | null;
}

const MCP_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-06-18",
};

/** Every version of a target, newest first, across pages. */
async function allVersions(ws: Workspace, base: string): Promise<VersionItem[]> {
  const out: VersionItem[] = [];
  let cursor: string | null = null;
  do {
    const page: { body: { items: VersionItem[]; nextCursor: string | null } } = await apiOk(
      "GET",
      `${base}/versions?limit=100${cursor ? `&cursor=${cursor}` : ""}`,
      { key: ws.key },
    );
    out.push(...page.body.items);
    cursor = page.body.nextCursor;
  } while (cursor !== null);
  return out;
}

/** A single tools/call over raw HTTP: the HTTP status and the JSON-RPC message. */
async function toolCall(
  ws: string,
  key: string,
  name: string,
  args: Record<string, unknown>,
  meta?: Record<string, unknown>,
) {
  const reply = await send({
    method: "POST",
    path: `/mcp/${ws}`,
    headers: { ...MCP_HEADERS, authorization: `Bearer ${key}` },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
    }),
    timeoutMs: 20_000,
  });
  if (reply.kind !== "reply") return { status: 0, result: null, error: reply.kind };
  const parsed = parseJson(reply.text);
  const message = parsed.ok && isObject(parsed.value) ? parsed.value : {};
  const result = isObject(message.result) ? message.result : null;
  return { status: reply.status, result, error: message.error ?? null };
}

const refusal = (result: Record<string, unknown> | null): Record<string, unknown> | null => {
  if (result?.isError !== true || !isObject(result._meta)) return null;
  const error = result._meta["rayrun/error"];
  return isObject(error) ? error : null;
};

/** Rates are counted in one-minute windows aligned to the clock (as the rate limiting bindings count them). */
const windowOf = (ms: number) => Math.floor(ms / 60_000);

/** A workspace with the demo upstream registered (its `echo` tool) and an OpenAI provider, plus `config`. */
async function mcpAndLlmWorkspace(name: string, config: Record<string, unknown> = {}) {
  const ws = await createWorkspace(`reliability-${name}`);
  const service = await registerService(ws, name, `${server().upstreamUrl}/rel-${name}-${ws.uid}/mcp`);
  await putSecret(ws, "provider-key", `sk-${name}`);
  const root = `${server().providerUrl}/rel-${name}-${ws.uid}`;
  const saved = await updateConfig(ws, (current) => ({
    ...current,
    providers: { openai: { baseUrl: `${root}/v1`, apiKeySecret: "provider-key" } },
    ...config,
  }));
  expect(saved.status).toBe(200);
  return { ws, tool: service.tools.echo?.name ?? "echo" };
}

describe("races", () => {
  const rows: Figures[] = [];
  let ws: Workspace;
  let echo = { uid: "", name: "" };
  let hook = "";
  let upstreamId = "";

  beforeAll(async () => {
    ws = await createWorkspace("reliability-races");
    upstreamId = `rel-races-${ws.uid}`;
    const service = await registerService(ws, "races", `${server().upstreamUrl}/${upstreamId}/mcp`);
    echo = service.tools.echo ?? echo;
    hook = `${ws.base}/tools/${echo.uid}/hook`;
  });

  afterAll(() => printFigures("Races", rows));

  it("concurrent saves under one ETag: exactly one wins each round, the rest are 412", async () => {
    const rounds = 3;
    const writers = 8;
    let winners = 0;
    let stale = 0;
    let other = 0;
    const won: string[] = [];
    for (let round = 0; round < rounds; round++) {
      const { headers } = await apiOk("GET", hook, { key: ws.key });
      const etag = headers.get("etag") ?? "";
      const answers = await Promise.all(
        Array.from({ length: writers }, async (_, i) => {
          const source = adapter(` r${round} w${i}`);
          const answer = await api("PUT", `${hook}/draft`, {
            key: ws.key,
            body: { source, config: {}, note: `r${round} w${i}` },
            headers: { "if-match": etag },
          });
          return { answer, note: `r${round} w${i}` };
        }),
      );
      const ok = answers.filter(({ answer }) => answer.status === 200);
      winners += ok.length;
      stale += answers.filter(({ answer }) => answer.status === 412).length;
      other += answers.filter(({ answer }) => answer.status !== 200 && answer.status !== 412).length;
      for (const { note } of ok) won.push(note);
    }
    const versions = await allVersions(ws, hook);
    rows.push({
      race: "saves under one ETag",
      attempts: rounds * writers,
      winners,
      "refused (412/409)": stale,
      other,
      "versions lost": Math.max(0, winners - versions.length),
      "versions duplicated": Math.max(0, versions.length - winners),
    });
    expect({ winners, stale, other }).toEqual({ winners: rounds, stale: rounds * (writers - 1), other: 0 });
    expect(versions.map((v) => v.version)).toEqual([3, 2, 1]);
    expect(versions.map((v) => v.note).toReversed()).toEqual(won);
  });

  it("writers that retry on 412 lose and duplicate no version", async () => {
    const writers = 6;
    const each = 3;
    const start = (await allVersions(ws, hook)).length;
    let retries = 0;
    let failures = 0;
    await Promise.all(
      Array.from({ length: writers }, async (_, w) => {
        for (let n = 0; n < each; n++) {
          const note = `retry w${w} n${n}`;
          let etag = (await apiOk("GET", hook, { key: ws.key })).headers.get("etag") ?? "";
          for (let attempt = 0; ; attempt++) {
            const answer = await api("PUT", `${hook}/draft`, {
              key: ws.key,
              body: { source: adapter(` ${note}`), config: {}, note },
              headers: { "if-match": etag },
            });
            if (answer.status === 200) break;
            if (answer.status !== 412 || attempt > 50) {
              failures++;
              break;
            }
            retries++;
            // A 412 names the current ETag: the writer retries on it, as a client would.
            etag =
              answer.headers.get("etag") ??
              (await apiOk("GET", hook, { key: ws.key })).headers.get("etag") ??
              "";
          }
        }
      }),
    );
    const versions = await allVersions(ws, hook);
    const added = versions.filter((v) => v.version > start);
    const notes = added.map((v) => v.note ?? "");
    const expected = Array.from({ length: writers }, (_, w) =>
      Array.from({ length: each }, (__, n) => `retry w${w} n${n}`),
    ).flat();
    rows.push({
      race: "writers retrying on 412",
      attempts: writers * each + retries,
      winners: added.length,
      "refused (412/409)": retries,
      other: failures,
      "versions lost": expected.filter((note) => !notes.includes(note)).length,
      "versions duplicated": notes.length - new Set(notes).size,
    });
    expect(failures).toBe(0);
    expect(notes.toSorted()).toEqual(expected.toSorted());
    // Numbers are contiguous: nothing was skipped or given twice.
    expect(versions.map((v) => v.version)).toEqual(
      Array.from({ length: start + writers * each }, (_, i) => start + writers * each - i),
    );
  });

  it("concurrent restores under one ETag: exactly one creates a version", async () => {
    const { headers } = await apiOk("GET", hook, { key: ws.key });
    const etag = headers.get("etag") ?? "";
    const before = (await allVersions(ws, hook)).length;
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        api<{ noop?: boolean }>("POST", `${hook}/versions/1/restore`, {
          key: ws.key,
          body: { note: "restore race" },
          headers: { "if-match": etag },
        }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    const after = await allVersions(ws, hook);
    rows.push({
      race: "restores under one ETag",
      attempts: 6,
      winners: statuses.filter((s) => s === 200).length,
      "refused (412/409)": statuses.filter((s) => s === 412).length,
      other: statuses.filter((s) => s !== 200 && s !== 412).length,
      "versions lost": 0,
      "versions duplicated": Math.max(0, after.length - before - 1),
    });
    expect(statuses.toSorted((a, b) => a - b)).toEqual([200, 412, 412, 412, 412, 412]);
    expect(after.length).toBe(before + 1);
  });

  it("concurrent deploys of one version make one revision; of several, one revision each and a pointer at one of them", async () => {
    const version = await saveDraft(ws, hook, adapter(" deployed"), "deploy race");
    await apiOk("POST", `${hook}/test`, {
      key: ws.key,
      body: { stage: "before", arguments: { text: "x" }, version },
    });
    const same = await Promise.all(
      Array.from({ length: 5 }, () =>
        api<{ reused: boolean; revision: { id: string } }>("POST", `${hook}/deployments`, {
          key: ws.key,
          body: { version, channel: "active" },
        }),
      ),
    );
    const ids = new Set(same.map((a) => a.body.revision?.id));
    const created = same.filter((a) => a.status === 201).length;
    const reused = same.filter((a) => a.status === 200).length;

    // Three more versions, each tested, deployed at once (twice each).
    const others: number[] = [];
    for (const tag of ["a", "b", "c"]) {
      const v = await saveDraft(ws, hook, adapter(` ${tag}`), `deploy ${tag}`);
      await apiOk("POST", `${hook}/test`, {
        key: ws.key,
        body: { stage: "before", arguments: { text: "x" }, version: v },
      });
      others.push(v);
    }
    const mixed = await Promise.all(
      [...others, ...others].map((v) =>
        api<{ revision: { id: string; version: number } }>("POST", `${hook}/deployments`, {
          key: ws.key,
          body: { version: v, channel: "active" },
        }),
      ),
    );
    const revisions = (
      await apiOk<{ items: { id: string; version: number }[] }>("GET", `${hook}/revisions?limit=100`, {
        key: ws.key,
      })
    ).body.items;
    const { body: state } = await apiOk<{ deployments: { active: { revisionId: string } | null } }>(
      "GET",
      hook,
      { key: ws.key },
    );
    const perVersion = (v: number) => revisions.filter((r) => r.version === v).length;
    rows.push({
      race: "deploys (one version ×5, three ×2)",
      attempts: same.length + mixed.length,
      winners: created + mixed.filter((a) => a.status === 201).length,
      "refused (412/409)": [...same, ...mixed].filter((a) => a.status === 409).length,
      other: [...same, ...mixed].filter((a) => a.status >= 300 && a.status !== 409).length,
      "versions lost": [version, ...others].filter((v) => perVersion(v) === 0).length,
      "versions duplicated": [version, ...others].filter((v) => perVersion(v) > 1).length,
    });
    expect({ created, reused, ids: ids.size }).toEqual({ created: 1, reused: 4, ids: 1 });
    expect(mixed.map((a) => a.status).filter((s) => s !== 200 && s !== 201)).toEqual([]);
    expect([version, ...others].map(perVersion)).toEqual([1, 1, 1, 1]);
    const mixedIds = new Set(mixed.map((a) => a.body.revision.id));
    expect(mixedIds.size).toBe(3);
    expect(mixedIds.has(state.deployments.active?.revisionId ?? "")).toBe(true);
  });

  it("a deploy racing a reset leaves no pointer at a revision of the discarded history", async () => {
    // Either order is fine — deploy then reset (no pointer), or reset then deploy (the version is gone,
    // so the deploy is refused) — but after both have answered, an active pointer must name a revision
    // the hook lists, and the gateway must run exactly what the pointer says.
    const delays = [0, 5, 10, 20, 40, 60, 80, 120];
    const broken: string[] = [];
    for (const delay of delays) {
      const version = await saveDraft(ws, hook, adapter(` reset-race ${delay}`), `reset race ${delay}`);
      await apiOk("POST", `${hook}/test`, {
        key: ws.key,
        body: { stage: "before", arguments: { text: "x" }, version },
      });
      const [deployed, reset] = await Promise.all([
        api<{ revision?: { id: string } }>("POST", `${hook}/deployments`, {
          key: ws.key,
          body: { version, channel: "active" },
        }),
        new Promise((resolve) => setTimeout(resolve, delay)).then(() =>
          api("POST", `${hook}/reset`, { key: ws.key }),
        ),
      ]);
      const { body: state } = await apiOk<{
        draft: { version: number };
        deployments: { active: { revisionId: string } | null };
      }>("GET", hook, { key: ws.key });
      const { body: revisions } = await apiOk<{ items: { id: string }[] }>(
        "GET",
        `${hook}/revisions?limit=100`,
        { key: ws.key },
      );
      const active = state.deployments.active?.revisionId ?? null;
      const listed = active === null || revisions.items.some((r) => r.id === active);
      const call = await toolCall(ws.uid, ws.key, echo.name, { text: "x" });
      const content = Array.isArray(call.result?.content) ? (call.result.content as { text?: string }[]) : [];
      const text = content[0]?.text ?? JSON.stringify(call.result ?? call.error);
      // With no listed pointer the hook is gone: the call must reach the upstream unchanged.
      const runs = text !== "x";
      if (!listed || (active === null && runs)) {
        broken.push(
          `reset ${delay} ms after the deploy started: deploy ${deployed.status}, reset ${reset.status}; then GET …/hook shows draft version ${state.draft.version} and active ${active}, GET …/revisions lists ${JSON.stringify(revisions.items.map((r) => r.id))}, and tools/call ${echo.name} {text:"x"} answers ${JSON.stringify(text)}`,
        );
      }
    }
    rows.push({
      race: "deploy racing a reset",
      attempts: delays.length * 2,
      winners: "-",
      "refused (412/409)": "-",
      other: "-",
      "versions lost": "-",
      "versions duplicated": "-",
      note: `${broken.length} of ${delays.length} left a pointer at an unlisted revision`,
    });
    // Later tests start from a hook without a deployment.
    await apiOk("POST", `${hook}/reset`, { key: ws.key });
    expect(broken).toEqual([]);
  });

  it("concurrent approve and deny: exactly one decides; an approved call dispatches once under concurrent repeats", async () => {
    // Every tool is at least low risk: under this profile every call needs a one-call approval.
    await apiOk("PUT", `${ws.base}/access-profiles/default`, { key: ws.key, body: { approvalRisk: "low" } });
    const ask = async (text: string) => {
      const call = await toolCall(ws.uid, ws.key, echo.name, { text });
      const meta = refusal(call.result);
      if (meta?.code !== "approval_required" || typeof meta.approvalId !== "string")
        throw new Error(`expected approval_required: ${JSON.stringify(call)}`);
      return meta.approvalId;
    };
    const first = await ask("race decide");
    const decisions = await Promise.all(
      ["approve", "deny", "approve", "deny", "approve", "deny", "approve", "deny"].map(async (d) => ({
        d,
        answer: await api<{ status: string }>("POST", `${ws.base}/approvals/${first}/${d}`, { key: ws.key }),
      })),
    );
    const winners = decisions.filter(({ answer }) => answer.status === 200);
    const stored = await apiOk<{ status: string }>("GET", `${ws.base}/approvals/${first}`, { key: ws.key });

    const second = await ask("race use");
    await apiOk("POST", `${ws.base}/approvals/${second}/approve`, { key: ws.key });
    const uses = await Promise.all(
      Array.from({ length: 6 }, () =>
        toolCall(ws.uid, ws.key, echo.name, { text: "race use" }, { "rayrun/approvalId": second }),
      ),
    );
    const dispatched = uses.filter((u) => u.result !== null && u.result.isError !== true).length;
    const calls = (await (await fetch(`${server().upstreamUrl}/${upstreamId}/_calls`)).json()) as {
      arguments: { text?: string };
    }[];
    const reachedUpstream = calls.filter((c) => c.arguments.text?.startsWith("race use")).length;
    rows.push({
      race: "approve/deny ×8, then use ×6",
      attempts: decisions.length + uses.length,
      winners: winners.length + dispatched,
      "refused (412/409)":
        decisions.filter(({ answer }) => answer.status === 409).length +
        uses.filter((u) => refusal(u.result) !== null).length,
      other: decisions.filter(({ answer }) => answer.status !== 200 && answer.status !== 409).length,
      "versions lost": "-",
      "versions duplicated": "-",
      note: `${stored.body.status}; ${reachedUpstream} upstream call(s) for the approved call`,
    });
    await apiOk("PUT", `${ws.base}/access-profiles/default`, { key: ws.key, body: { approvalRisk: null } });
    expect(winners).toHaveLength(1);
    expect(decisions.filter(({ answer }) => answer.status === 409)).toHaveLength(7);
    expect(stored.body.status).toBe(winners[0]?.d === "approve" ? "approved" : "denied");
    expect(dispatched).toBe(1);
    expect(reachedUpstream).toBe(1);
    expect(uses.filter((u) => refusal(u.result)?.code === "approval_used")).toHaveLength(5);
  });

  it("per-key rate limits hold under concurrent traffic: 429 with Retry-After past the smallest tier, other keys unaffected", async () => {
    const all = await limits();
    const tiers = all.rateLimitTiersPerMinute;
    const smallest = Array.isArray(tiers)
      ? Math.min(...tiers.filter((t): t is number => typeof t === "number"))
      : null;
    expect(
      smallest,
      "GET /v1/limits names the rates a workspace may choose (rateLimitTiersPerMinute)",
    ).not.toBeNull();
    const limit = smallest ?? 0;
    const { ws: limited, tool } = await mcpAndLlmWorkspace("rate", {
      rateLimits: { mcpPerMinute: limit, llmPerMinute: limit },
    });
    const busy = await createKey(limited, ["tools:call"], "busy");
    const other = await createKey(limited, ["tools:call"], "other");
    const burst = limit + 20;
    const mcp = (key: string) =>
      send({
        method: "POST",
        path: `/mcp/${limited.uid}`,
        headers: { ...MCP_HEADERS, authorization: `Bearer ${key}` },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: tool, arguments: { text: "rate" } },
        }),
        timeoutMs: 20_000,
      });
    const llm = (key: string) =>
      send({
        method: "POST",
        path: `/llm/${limited.uid}/openai/v1/chat/completions`,
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: JSON.stringify({ model: "demo", messages: [{ role: "user", content: "rate" }] }),
        timeoutMs: 20_000,
      });
    // Eight at a time, as a busy client would send them.
    const burstOf = async (one: () => ReturnType<typeof send>) => {
      const replies: Awaited<ReturnType<typeof send>>[] = [];
      for (let i = 0; i < burst; i += 8)
        replies.push(...(await Promise.all(Array.from({ length: Math.min(8, burst - i) }, one))));
      return replies;
    };
    const defects: string[] = [];
    const judge = (route: "mcp" | "llm", replies: Awaited<ReturnType<typeof send>>[]) => {
      let accepted = 0;
      let refused = 0;
      for (const reply of replies) {
        if (reply.kind !== "reply") {
          defects.push(`${route}: ${reply.kind}`);
          continue;
        }
        if (reply.status === 200) accepted++;
        else if (reply.status === 429) {
          refused++;
          const retryAfter = Number(reply.headers["retry-after"]);
          const parsed = parseJson(reply.text);
          const body = parsed.ok && isObject(parsed.value) ? parsed.value : {};
          const readable =
            route === "llm"
              ? isObject(body.error) && typeof body.error.message === "string"
              : isObject(body.error) || typeof body.code === "string";
          if (!(retryAfter > 0) || !readable)
            defects.push(
              `${route} 429 without Retry-After or a readable error: ${JSON.stringify(reply.headers["retry-after"])} ${reply.text.slice(0, 200)}`,
            );
        } else defects.push(`${route}: HTTP ${reply.status} ${reply.text.slice(0, 200)}`);
      }
      return { accepted, refused };
    };
    // A burst that crosses a minute boundary may pass `limit` in each window it touches, and no more.
    const timed = async (route: "mcp" | "llm", one: () => ReturnType<typeof send>) => {
      const first = windowOf(Date.now());
      const replies = await burstOf(one);
      return { ...judge(route, replies), windows: windowOf(Date.now()) - first + 1 };
    };
    const mcpBurst = await timed("mcp", () => mcp(busy.key));
    const llmBurst = await timed("llm", () => llm(busy.key));
    const otherMcp = await mcp(other.key);
    const otherLlm = await llm(other.key);
    const otherStatuses = [otherMcp, otherLlm].map((r) => (r.kind === "reply" ? r.status : 0));
    rows.push({
      race: `rate limit ${limit}/min, ${burst} per route`,
      attempts: burst * 2,
      winners: mcpBurst.accepted + llmBurst.accepted,
      "refused (412/409)": "-",
      other: defects.length,
      "versions lost": "-",
      "versions duplicated": "-",
      note: `mcp ${mcpBurst.accepted} accepted / ${mcpBurst.refused} × 429 (${mcpBurst.windows} window(s)), llm ${llmBurst.accepted} / ${llmBurst.refused} × 429 (${llmBurst.windows}); another key: ${otherStatuses.join(", ")}`,
    });
    expect(defects).toEqual([]);
    expect(mcpBurst.accepted).toBeLessThanOrEqual(limit * mcpBurst.windows);
    expect(llmBurst.accepted).toBeLessThanOrEqual(limit * llmBurst.windows);
    expect(mcpBurst.refused).toBeGreaterThanOrEqual(burst - limit * mcpBurst.windows);
    expect(llmBurst.refused).toBeGreaterThanOrEqual(burst - limit * llmBurst.windows);
    expect(otherStatuses).toEqual([200, 200]);
  });

  it("after DELETE of a key returns, every request with it is refused on /mcp and /llm", async () => {
    const { ws: traffic, tool } = await mcpAndLlmWorkspace("revocation");
    const caller = await createKey(traffic, ["tools:call"], "soon-revoked");

    interface Sample {
      route: "mcp" | "llm";
      startedAt: number;
      accepted: boolean;
      detail: string;
    }
    const samples: Sample[] = [];
    // Aborted when the traffic should stop; every loop checks it before its next request.
    const stopping = new AbortController();
    let revokedAt = Number.POSITIVE_INFINITY;
    const mcpLoop = async () => {
      while (!stopping.signal.aborted) {
        const startedAt = performance.now();
        const call = await toolCall(traffic.uid, caller.key, tool, { text: "during revocation" });
        const accepted = call.status === 200 && call.result !== null && call.result.isError !== true;
        samples.push({
          route: "mcp",
          startedAt,
          accepted,
          detail: `${call.status} ${JSON.stringify(call.result ?? call.error).slice(0, 200)}`,
        });
      }
    };
    const llmLoop = async () => {
      while (!stopping.signal.aborted) {
        const startedAt = performance.now();
        const reply = await send({
          method: "POST",
          path: `/llm/${traffic.uid}/openai/v1/chat/completions`,
          headers: { "content-type": "application/json", authorization: `Bearer ${caller.key}` },
          body: JSON.stringify({ model: "demo", messages: [{ role: "user", content: "during revocation" }] }),
          timeoutMs: 20_000,
        });
        const status = reply.kind === "reply" ? reply.status : 0;
        samples.push({
          route: "llm",
          startedAt,
          accepted: status === 200,
          detail: reply.kind === "reply" ? `${status} ${reply.text.slice(0, 200)}` : reply.kind,
        });
      }
    };
    const loops = [mcpLoop(), mcpLoop(), llmLoop(), llmLoop()];
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const revoked = await api("DELETE", `${traffic.base}/keys/${caller.id}`, { key: traffic.key });
    revokedAt = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 2500));
    stopping.abort();
    await Promise.all(loops);

    const before = samples.filter((s) => s.startedAt < revokedAt);
    const after = samples.filter((s) => s.startedAt > revokedAt);
    const leaked = after.filter((s) => s.accepted);
    rows.push({
      race: "revocation during traffic",
      attempts: samples.length,
      winners: "-",
      "refused (412/409)": "-",
      other: "-",
      "versions lost": "-",
      "versions duplicated": "-",
      note: `${before.filter((s) => s.accepted).length} accepted before the DELETE returned, ${after.length - leaked.length} refused after, ${leaked.length} accepted after`,
    });
    expect(revoked.status).toBe(200);
    expect(before.filter((s) => s.accepted && s.route === "mcp").length).toBeGreaterThan(0);
    expect(before.filter((s) => s.accepted && s.route === "llm").length).toBeGreaterThan(0);
    expect(after.filter((s) => s.route === "mcp").length).toBeGreaterThan(0);
    expect(after.filter((s) => s.route === "llm").length).toBeGreaterThan(0);
    expect(
      leaked.map(
        (s) =>
          `${s.route} started ${(s.startedAt - revokedAt).toFixed(0)} ms after the DELETE returned: ${s.detail}`,
      ),
    ).toEqual([]);
  });
});
