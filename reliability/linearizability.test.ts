// Leases against the clock: once a deploy, rollback, reset or key revocation
// has returned to its caller, no call that starts afterwards may run on the
// state it replaced, on any isolate. The gateway no longer asks the
// workspace's object per call, so this holds only because every such write
// waits out the leases granted before it (durable-objects/workspace/lease.ts).
//
// Each phase runs a dev server of its own with three gateway colos (separate
// isolates, separate leases) and drives eight connections across them while
// one writer moves the tool's adapter through deploys, rollbacks and resets
// and revokes the key two of the connections use. Every adapter version
// appends its own tag to the text it sends upstream, and the demo upstream
// records what it received, so each call shows the revision it ran on. A call
// is a violation when the upstream saw a tag that is neither the state the
// last write returned before the call started left, nor the state of a write
// in flight at some point of the call; or when it used the revoked key, began
// after the revocation returned and got anything but a 401.
//
// The control phase runs the same check against a server whose writes skip
// the wait (SIM_UNSAFE_SKIP_LEASE_WAIT) and must find violations: the check
// sees exactly what the wait prevents.
//
// Cost on a 2-core machine: the three servers start side by side (one alone
// takes about 45 s; all three 2.5-5.5 min when other work loads the cores),
// then each checked phase runs until it has both its 2,000 calls and its 21
// writes, 1-3 min (a write waits out one lease, LEASE_MS 1000 here, plus its
// own work), and the control 20-50 s: 5-13 min for the file as measured.
// LINEARIZABILITY_LEASE_MS=5000 checks at production's lease length
// (KNOBS.leaseMs), 2 min per checked phase.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  apiOk,
  createKey,
  createWorkspace,
  isObject,
  parseJson,
  printFigures,
  raiseRateLimits,
  registerService,
  scaled,
  send,
  startOwnServer,
  testedVersion,
  useServer,
  type Figures,
  type OwnServer,
  type Workspace,
} from "./harness.ts";
import { KNOBS } from "../shared/knobs.ts";

const COLOS = 3;
const CONNECTIONS = 8;
/** These connections call with the key that is revoked mid-phase (colos 1 and 2). */
const REVOKED_KEY_CONNECTIONS = new Set([6, 7]);
/**
 * Shorter than production's: each write waits about one lease while calls
 * hold them, and the guarantee does not depend on the length (the object's
 * margin and the isolate's clock slack are fixed, not fractions of it).
 */
const LEASE_MS = Number(process.env.LINEARIZABILITY_LEASE_MS ?? "1000");

interface Phase {
  name: string;
  simHomeRttMs: number;
  unsafeSkipLeaseWait: boolean;
  /** Pointer writes (deploy, rollback, reset); one key revocation comes on top. */
  writes: number;
  minCalls: number;
  /** LEASE_MS of its server. */
  leaseMs: number;
}

const PHASES: Phase[] = [
  {
    name: "RTT 0",
    simHomeRttMs: 0,
    unsafeSkipLeaseWait: false,
    writes: scaled(20),
    minCalls: scaled(2000),
    leaseMs: LEASE_MS,
  },
  {
    name: "RTT 50",
    simHomeRttMs: 50,
    unsafeSkipLeaseWait: false,
    writes: scaled(20),
    minCalls: scaled(2000),
    leaseMs: LEASE_MS,
  },
  // Enough to show the check failing, no more: every write leaves a window of stale calls. Its
  // writes wait for nothing, so production's lease length costs no time here and keeps that
  // window wide enough to be hit on a loaded machine.
  {
    name: "control: no lease wait",
    simHomeRttMs: 0,
    unsafeSkipLeaseWait: true,
    writes: 6,
    minCalls: 200,
    leaseMs: KNOBS.leaseMs,
  },
];

/** The phases the check must pass, and the one it must fail. */
const SAFE = [0, 1];
const CONTROL = 2;

const MCP_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-06-18",
};

/** Appends its own tag to the text it sends upstream. */
const taggedAdapter = (tag: string) => `
export default defineToolAdapter({
  apiVersion: "rayrun.hooks/v1",
  before: ({ arguments: a }) => ({ action: "continue", arguments: { text: String(a.text) + ${JSON.stringify(` @${tag}`)} } }),
});
`;

/** The tag a call ran under, from the text the upstream received for call `id`: null with no adapter. */
function tagOf(id: string, text: string): { ok: true; tag: string | null } | { ok: false } {
  if (text === id) return { ok: true, tag: null };
  const match = /^(\S+) @(v\d+)$/.exec(text);
  return match?.[1] === id && match[2] !== undefined ? { ok: true, tag: match[2] } : { ok: false };
}

interface CallRecord {
  id: string;
  connection: number;
  colo: number;
  revokedKey: boolean;
  start: number;
  /** Infinity when no answer came: the call may still have run later. */
  end: number;
  /** "ok", an HTTP status other than 200, a refusal code, `rpc <code>`, or hang/dropped. */
  outcome: string;
  echoed: string | null;
}

interface WriteRecord {
  kind: "deploy" | "rollback" | "reset" | "revoke";
  start: number;
  end: number;
  /** The tag the tool runs under once this write has taken effect (null: no adapter). */
  state: string | null;
}

interface Outcome {
  calls: CallRecord[];
  writes: WriteRecord[];
  upstream: Map<string, string[]>;
  seconds: number;
}

interface Judgement {
  stale: string[];
  revokedAccepted: string[];
  anomalies: string[];
  ran: number;
  /** Calls that ran and started less than one lease after a pointer write returned: where a skipped wait shows. */
  exposed: number;
  refusals: Map<string, number>;
}

/** One tools/call of echo over a plain JSON-RPC POST to colo `colo`. */
async function callEcho(ws: string, key: string, colo: number, text: string, timeoutMs = 20_000) {
  const reply = await send({
    method: "POST",
    path: `/mcp/${ws}`,
    headers: { ...MCP_HEADERS, authorization: `Bearer ${key}`, "x-rayrun-colo": String(colo) },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "echo", arguments: { text } },
    }),
    timeoutMs,
  });
  if (reply.kind !== "reply") return { answered: false, outcome: reply.kind, echoed: null };
  if (reply.status !== 200) return { answered: true, outcome: String(reply.status), echoed: null };
  const parsed = parseJson(reply.text);
  const message = parsed.ok && isObject(parsed.value) ? parsed.value : {};
  if (isObject(message.error))
    return { answered: true, outcome: `rpc ${String(message.error.code)}`, echoed: null };
  const result = isObject(message.result) ? message.result : {};
  const content = Array.isArray(result.content) ? (result.content as unknown[]) : [];
  const first = content[0];
  const echoed = isObject(first) && typeof first.text === "string" ? first.text : null;
  if (result.isError === true) {
    const error = isObject(result._meta) ? result._meta["rayrun/error"] : undefined;
    const code = isObject(error) && typeof error.code === "string" ? error.code : "tool_error";
    return { answered: true, outcome: code, echoed };
  }
  return { answered: true, outcome: "ok", echoed };
}

/** The writes in order: deploy ×3, roll back to the cycle's first, reset; the revocation halfway. */
function writePlan(pointerWrites: number): WriteRecord["kind"][] {
  const cycle: WriteRecord["kind"][] = ["deploy", "deploy", "deploy", "rollback", "reset"];
  const kinds = Array.from({ length: pointerWrites }, (_, i) => cycle[i % cycle.length] ?? "deploy");
  kinds.splice(Math.floor(pointerWrites / 2), 0, "revoke");
  return kinds;
}

async function runPhase(phase: Phase, own: OwnServer): Promise<Outcome> {
  useServer(own);
  const ws: Workspace = await createWorkspace(`linearizability-${phase.simHomeRttMs}`);
  const upstreamId = `lin-${ws.uid}`;
  const service = await registerService(ws, "lin", `${own.upstreamUrl}/${upstreamId}/mcp`);
  const echo = service.tools.echo;
  if (echo === undefined) throw new Error("the demo upstream has no echo tool");
  await raiseRateLimits(ws);
  const second = await createKey(ws, ["tools:call"], "revoked-mid-phase");
  const hook = `${ws.base}/tools/${echo.uid}/hook`;
  const test = { stage: "before", arguments: { text: "x" } };

  const writes: WriteRecord[] = [];
  let tags = 0;
  let state: string | null = null;
  /** Revisions deployed since the last reset, oldest first. */
  let generation: { id: string; tag: string }[] = [];
  const timed = async (kind: WriteRecord["kind"], next: string | null, work: () => Promise<unknown>) => {
    const start = performance.now();
    await work();
    writes.push({ kind, start, end: performance.now(), state: next });
    state = next;
  };
  interface Ready {
    tag: string;
    version: number;
  }
  /** Saves and tests the next tagged version (not a write to the view: nothing is timed). */
  const prepare = (): Promise<Ready> => {
    const tag = `v${++tags}`;
    return testedVersion(ws, hook, taggedAdapter(tag), test).then((version) => ({ tag, version }));
  };
  const deploy = async ({ tag, version }: Ready) => {
    let id = "";
    await timed("deploy", tag, async () => {
      const { body } = await apiOk<{ revision: { id: string } }>("POST", `${hook}/deployments`, {
        key: ws.key,
        body: { version, channel: "active" },
      });
      id = body.revision.id;
    });
    generation.push({ id, tag });
  };
  const write = async (kind: WriteRecord["kind"], ready: Ready | null) => {
    if (kind === "deploy") {
      if (ready === null) throw new Error("a deploy needs a tested version");
      return deploy(ready);
    }
    if (kind === "rollback") {
      const to = generation[0];
      if (to === undefined) throw new Error("a rollback needs an earlier revision of this generation");
      return timed("rollback", to.tag, () =>
        apiOk("POST", `${hook}/rollback`, { key: ws.key, body: { revision: to.id, channel: "active" } }),
      );
    }
    if (kind === "reset") {
      generation = [];
      return timed("reset", null, () => apiOk("POST", `${hook}/reset`, { key: ws.key }));
    }
    return timed("revoke", state, () => apiOk("DELETE", `${ws.base}/keys/${second.id}`, { key: ws.key }));
  };
  /**
   * The writes one after another. The next deploy's version is saved and
   * tested while the write before it waits out the leases, unless a reset
   * comes between them (it deletes every version).
   */
  const runPlan = async (kinds: WriteRecord["kind"][]) => {
    let next: Promise<Ready> | null = null;
    for (const [i, kind] of kinds.entries()) {
      let ready: Ready | null = null;
      if (kind === "deploy") {
        ready = await (next ?? prepare());
        next = null;
      }
      const following = kinds.slice(i + 1).find((k) => k === "deploy" || k === "reset");
      if (next === null && kind !== "reset" && following === "deploy") {
        next = prepare();
        // Awaited when its deploy comes; this only keeps an early failure from going unhandled meanwhile.
        void next.catch(() => undefined);
      }
      await write(kind, ready);
    }
    await next;
  };

  const started = performance.now();
  // The state traffic starts on; it returned before any call began.
  await deploy(await prepare());
  // A colo's first call loads its isolate (the gateway, the sandbox's wasm), which a loaded
  // machine can stretch past the calls' timeout; that start-up is not what this file measures.
  for (let colo = 1; colo <= COLOS; colo++) await callEcho(ws.uid, ws.key, colo, `warm${colo}`, 120_000);

  const calls: CallRecord[] = [];
  const stopping = new AbortController();
  const connection = async (n: number) => {
    const colo = (n % COLOS) + 1;
    const revokedKey = REVOKED_KEY_CONNECTIONS.has(n);
    const key = revokedKey ? second.key : ws.key;
    for (let i = 0; !stopping.signal.aborted; i++) {
      const id = `c${n}.${i}`;
      const start = performance.now();
      const answer = await callEcho(ws.uid, key, colo, id);
      const end = answer.answered ? performance.now() : Number.POSITIVE_INFINITY;
      calls.push({
        id,
        connection: n,
        colo,
        revokedKey,
        start,
        end,
        outcome: answer.outcome,
        echoed: answer.echoed,
      });
    }
  };
  const traffic = Array.from({ length: CONNECTIONS }, (_, n) => connection(n));
  // Every connection has answers (so every colo holds a lease) before the first write.
  const warm = performance.now();
  while (
    Array.from({ length: CONNECTIONS }, (_, n) => calls.filter((c) => c.connection === n).length).some(
      (count) => count < 3,
    ) &&
    performance.now() - warm < 30_000
  )
    await new Promise((resolve) => setTimeout(resolve, 50));

  try {
    await runPlan(writePlan(phase.writes));
    // Calls after the last write too, for at least a lease, and the count asked for.
    const last = performance.now();
    while (
      (performance.now() - last < phase.leaseMs || calls.length < phase.minCalls) &&
      performance.now() - last < 120_000
    )
      await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    stopping.abort();
    await Promise.all(traffic);
  }

  const recorded = (await (await fetch(`${own.upstreamUrl}/${upstreamId}/_calls`)).json()) as {
    tool: string;
    arguments: { text?: unknown };
  }[];
  const upstream = new Map<string, string[]>();
  for (const call of recorded) {
    const text =
      typeof call.arguments.text === "string" ? call.arguments.text : JSON.stringify(call.arguments);
    const id = text.split(" ")[0] ?? text;
    upstream.set(id, [...(upstream.get(id) ?? []), text]);
  }
  return { calls, writes, upstream, seconds: (performance.now() - started) / 1000 };
}

const show = (ms: number, origin: number) =>
  Number.isFinite(ms) ? `${(ms - origin).toFixed(0)} ms` : "no answer";

function judge(phase: Phase, { calls, writes, upstream }: Outcome): Judgement {
  const origin = writes[0]?.start ?? 0;
  const stale: string[] = [];
  const revokedAccepted: string[] = [];
  const anomalies: string[] = [];
  const refusals = new Map<string, number>();
  const revocation = writes.find((w) => w.kind === "revoke");
  let ran = 0;
  let exposed = 0;
  for (const call of calls) {
    if (call.outcome !== "ok") refusals.set(call.outcome, (refusals.get(call.outcome) ?? 0) + 1);
    const seen = upstream.get(call.id) ?? [];
    const answered = Number.isFinite(call.end);
    // An unanswered call counts only if it reached the upstream: then it was let in.
    const letIn = (answered && call.outcome !== "401") || seen.length > 0;
    if (call.revokedKey && revocation !== undefined && call.start > revocation.end && letIn)
      revokedAccepted.push(
        `${call.id} (colo ${call.colo}) with the revoked key started ${(call.start - revocation.end).toFixed(0)} ms after the DELETE returned and was answered ${call.outcome}${seen.length > 0 ? ", and reached the upstream" : ""}`,
      );
    if (call.outcome === "401" && (!call.revokedKey || call.end < (revocation?.start ?? 0)))
      anomalies.push(`${call.id} (colo ${call.colo}) was refused 401 with a key nobody had revoked yet`);
    if (seen.length === 0) {
      if (call.outcome === "ok") anomalies.push(`${call.id} was answered ok but never reached the upstream`);
      continue;
    }
    ran++;
    if (seen.length > 1)
      anomalies.push(`${call.id} reached the upstream ${seen.length} times: ${JSON.stringify(seen)}`);
    const text = seen[0] ?? "";
    if (call.outcome === "ok" && call.echoed !== text)
      anomalies.push(
        `${call.id}: the upstream received ${JSON.stringify(text)}, the client got ${JSON.stringify(call.echoed)}`,
      );
    const observed = tagOf(call.id, text);
    if (!observed.ok) {
      anomalies.push(`${call.id}: the upstream received ${JSON.stringify(text)}, which no adapter sends`);
      continue;
    }
    const returned = writes.filter((w) => w.end < call.start).at(-1);
    const lastMove = writes.filter((w) => w.end < call.start && w.kind !== "revoke").at(-1);
    if (lastMove !== undefined && call.start - lastMove.end < phase.leaseMs) exposed++;
    const inFlight = writes.filter((w) => w.start < call.end && w.end > call.start);
    const allowed = new Set([
      ...(returned === undefined ? [] : [returned.state]),
      ...inFlight.map((w) => w.state),
    ]);
    if (!allowed.has(observed.tag)) {
      const latest =
        returned === undefined
          ? "none"
          : `${returned.kind} → ${returned.state ?? "no adapter"} (${show(returned.start, origin)} to ${show(returned.end, origin)})`;
      stale.push(
        `${call.id} (colo ${call.colo}, ${show(call.start, origin)} to ${show(call.end, origin)}) ran on ${observed.tag ?? "no adapter"}; the last write returned before it: ${latest}; allowed: ${[...allowed].map((t) => t ?? "no adapter").join(", ")}`,
      );
    }
  }
  return { stale, revokedAccepted, anomalies, ran, exposed, refusals };
}

function figures(phase: Phase, outcome: Outcome, verdict: Judgement): Figures {
  const byKind = (kind: WriteRecord["kind"]) => outcome.writes.filter((w) => w.kind === kind).length;
  const waits = outcome.writes.map((w) => w.end - w.start).toSorted((a, b) => a - b);
  const median = waits[Math.floor(waits.length / 2)] ?? 0;
  return {
    phase: phase.name,
    calls: outcome.calls.length,
    "reached upstream": verdict.ran,
    "< 1 lease after a write": verdict.exposed,
    writes: outcome.writes.length,
    "deploy/rollback/reset/revoke": ["deploy", "rollback", "reset", "revoke"]
      .map((k) => byKind(k as WriteRecord["kind"]))
      .join("/"),
    "write ms p50/max": `${median.toFixed(0)}/${(waits.at(-1) ?? 0).toFixed(0)}`,
    "stale runs": verdict.stale.length,
    "revoked key let in": verdict.revokedAccepted.length,
    anomalies: verdict.anomalies.length,
    refusals: [...verdict.refusals.entries()].map(([code, n]) => `${code}×${n}`).join(" ") || "none",
    "run s": outcome.seconds.toFixed(1),
  };
}

/**
 * Not violations, but worth reading beside them: writes that took far longer
 * than a lease, and calls that got no answer, by colo and time. A source file
 * edited mid-run makes wrangler rebuild and reload every Worker, which shows
 * up here as a write of a minute or more and a run of unanswered calls.
 */
function stalls(phase: Phase, { calls, writes }: Outcome): string[] {
  const origin = writes[0]?.start ?? 0;
  const slow = writes.filter((w) => w.end - w.start > 5 * phase.leaseMs + 5000);
  const unanswered = calls.filter((c) => !Number.isFinite(c.end));
  const out: string[] = [];
  for (const w of slow)
    out.push(
      `  ${w.kind} → ${w.state ?? "no adapter"} took ${(w.end - w.start).toFixed(0)} ms (${show(w.start, origin)} to ${show(w.end, origin)})`,
    );
  const byColo = [1, 2, 3].map((colo) => unanswered.filter((c) => c.colo === colo).length);
  if (unanswered.length > 0)
    out.push(
      `  ${unanswered.length} calls got no answer (colos 1/2/3: ${byColo.join("/")}), started ${show(Math.min(...unanswered.map((c) => c.start)), origin)} to ${show(Math.max(...unanswered.map((c) => c.start)), origin)}: ${unanswered
        .slice(0, 4)
        .map((c) => `${c.id} ${c.outcome}`)
        .join(", ")}`,
    );
  const at = new Date(Date.now() - (performance.now() - origin)).toISOString();
  return out.length > 0 ? [`${phase.name}, stalls (0 ms = ${at}):`, ...out] : [];
}

/** A base port: LINEARIZABILITY_PORT, else a random one clear of the suite's other servers. */
const basePort = (phase: number, attempt: number) => {
  const fixed = Number(process.env.LINEARIZABILITY_PORT ?? "");
  if (fixed > 0) return fixed + phase * 3;
  return 24_000 + Math.floor(Math.random() * 300) * 3 + attempt;
};

async function startPhaseServer(phase: Phase, index: number): Promise<OwnServer> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await startOwnServer({
        port: basePort(index, attempt),
        simHomeRttMs: phase.simHomeRttMs,
        colos: COLOS,
        leaseMs: phase.leaseMs,
        unsafeSkipLeaseWait: phase.unsafeSkipLeaseWait,
      });
    } catch (error) {
      if (attempt >= 2 || !(error instanceof Error) || error.name !== "PortInUseError") throw error;
    }
  }
}

describe("linearizability of deploys, rollbacks, resets and revocations across colos", () => {
  const rows: Figures[] = [];
  const notes: string[] = [];
  let servers: OwnServer[] = [];
  const fileStarted = performance.now();

  beforeAll(async () => {
    const starting = PHASES.map((phase, i) => startPhaseServer(phase, i));
    const settled = await Promise.allSettled(starting);
    servers = settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
    const failed = settled.find((s) => s.status === "rejected");
    if (failed !== undefined) throw failed.reason;
    notes.push(
      `${servers.length} dev servers started side by side (${COLOS} colos each, LEASE_MS ${PHASES.map((p) => p.leaseMs).join("/")}), ready in ${((performance.now() - fileStarted) / 1000).toFixed(0)} s`,
    );
  }, 420_000);

  afterAll(async () => {
    useServer(undefined);
    await Promise.all(servers.map((s) => s.stop()));
    notes.push(`the whole file: ${((performance.now() - fileStarted) / 1000).toFixed(0)} s`);
    printFigures("Linearizability (calls on 3 colos while one writer moves the view)", rows, notes);
  });

  /** Runs phase `index` on its server and judges it; the figures and first violations go to the table. */
  async function checked(index: number): Promise<{ outcome: Outcome; verdict: Judgement }> {
    const phase = PHASES[index];
    const own = servers[index];
    if (phase === undefined || own === undefined) throw new Error(`no server for phase ${index}`);
    const outcome = await runPhase(phase, own);
    const verdict = judge(phase, outcome);
    rows.push(figures(phase, outcome, verdict));
    const examples = [...verdict.stale, ...verdict.revokedAccepted].slice(0, 5);
    if (examples.length > 0) notes.push(`${phase.name}, first violations:`, ...examples.map((e) => `  ${e}`));
    if (verdict.anomalies.length > 0)
      notes.push(`${phase.name}, anomalies:`, ...verdict.anomalies.slice(0, 5).map((e) => `  ${e}`));
    notes.push(...stalls(phase, outcome));

    expect(verdict.anomalies).toEqual([]);
    expect(outcome.writes.length).toBeGreaterThanOrEqual(phase.writes + 1);
    expect(outcome.calls.length).toBeGreaterThanOrEqual(phase.minCalls);
    // The key was in use before the DELETE, and tried again after it returned.
    const revocation = outcome.writes.find((w) => w.kind === "revoke");
    const withRevoked = outcome.calls.filter((c) => c.revokedKey);
    expect(revocation).toBeDefined();
    expect(
      withRevoked.filter((c) => c.end < (revocation?.start ?? 0) && c.outcome === "ok").length,
    ).toBeGreaterThan(0);
    expect(withRevoked.filter((c) => c.start > (revocation?.end ?? 0)).length).toBeGreaterThan(0);
    return { outcome, verdict };
  }

  it.each(SAFE.map((index) => ({ index, name: PHASES[index]?.name ?? "" })))(
    "$name: no call that starts after a write returned runs on the state it replaced",
    async ({ index }) => {
      const { verdict } = await checked(index);
      expect(verdict.stale).toEqual([]);
      expect(verdict.revokedAccepted).toEqual([]);
    },
    600_000,
  );

  it("control: with writes that skip the lease wait, the same check finds calls on replaced state", async () => {
    const { verdict } = await checked(CONTROL);
    expect(verdict.stale.length).toBeGreaterThan(0);
  }, 600_000);
});
