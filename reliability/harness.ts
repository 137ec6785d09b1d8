// What every reliability file shares: the dev server from globalSetup, a raw
// HTTP client that counts hangs (node:http, so malformed paths and headers go
// out exactly as built), setup through the public API, the official MCP client,
// figure tables, and the workerd processes' memory.
import * as fc from "fast-check";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inject } from "vitest";
import type { ReliabilityServer } from "./global-setup.ts";

let chosen: ReliabilityServer | undefined;

/** The server the helpers talk to: the suite's, or the one `useServer` named. */
export const server = (): ReliabilityServer => chosen ?? inject("reliabilityServer");

/**
 * Points every helper at `next`, a server the file started itself (a simulated
 * distance, several gateway colos, other lease settings), or back at the
 * suite's with undefined. Each file runs in its own module instance, so this
 * never reaches another file.
 */
export function useServer(next: ReliabilityServer | undefined): void {
  chosen = next;
}

export const ADMIN_SCOPES = ["admin", "hooks:read", "hooks:write", "tools:call"] as const;

/** Fuzz runs, times RELIABILITY_SCALE (default 1): a longer hunt without editing the tests. */
export const scaled = (runs: number): number =>
  Math.max(1, Math.round(runs * Number(process.env.RELIABILITY_SCALE ?? "1")));

// ── Raw HTTP ────────────────────────────────────────────────────────────────

export interface RawRequest {
  method: string;
  /** Sent as given: the caller encodes it (malformed percent-encodings survive). */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Past this the request counts as a hang and is abandoned. */
  timeoutMs?: number;
}

export type RawReply =
  | { kind: "reply"; status: number; headers: http.IncomingHttpHeaders; text: string; ms: number }
  | { kind: "hang"; ms: number }
  /** The connection failed or was reset before a whole answer arrived. */
  | { kind: "dropped"; error: string; ms: number };

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

/** One request over a pooled keep-alive connection to the dev server. */
export function send(request: RawRequest, base: string = server().url): Promise<RawReply> {
  const url = new URL(base);
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (reply: RawReply) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(reply);
    };
    let req: http.ClientRequest;
    try {
      req = http.request({
        host: url.hostname,
        port: url.port,
        method: request.method,
        path: request.path,
        agent,
        headers: {
          ...(request.body === undefined ? {} : { "content-length": Buffer.byteLength(request.body) }),
          ...request.headers,
        },
      });
    } catch (error) {
      // node refuses to send some paths and header values at all: a client-side limit, not an answer.
      throw new Error(
        `node:http refused to build ${request.method} ${request.path.slice(0, 200)}: ${String(error)}`,
        { cause: error },
      );
    }
    const timer = setTimeout(() => {
      finish({ kind: "hang", ms: elapsed() });
      req.destroy();
    }, request.timeoutMs ?? 20_000);
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        finish({
          kind: "reply",
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: Buffer.concat(chunks).toString("utf8"),
          ms: elapsed(),
        }),
      );
      res.on("error", (error) => finish({ kind: "dropped", error: String(error), ms: elapsed() }));
    });
    req.on("error", (error) => finish({ kind: "dropped", error: String(error), ms: elapsed() }));
    if (request.body !== undefined) req.write(request.body);
    req.end();
  });
}

export const mediaType = (headers: http.IncomingHttpHeaders): string =>
  (headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase() ?? "";

export function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * What is wrong with an error answer of ours, or null: it must be
 * application/problem+json whose `code` is a non-empty string and whose
 * `status`, when present, is the HTTP status.
 */
export function problemDefect(reply: {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}): string | null {
  const type = mediaType(reply.headers);
  if (type !== "application/problem+json")
    return `content-type ${JSON.stringify(type)}, not application/problem+json`;
  const parsed = parseJson(reply.text);
  if (!parsed.ok || !isObject(parsed.value)) return "the body is not a JSON object";
  const { code, status } = parsed.value;
  if (typeof code !== "string" || code === "") return "no `code`";
  if (status !== undefined && status !== reply.status)
    return `status member ${JSON.stringify(status)} ≠ HTTP ${reply.status}`;
  return null;
}

/** Resolves to the value, the error, or a hang when `ms` passes first; never rejects. */
export async function bounded<T>(
  work: Promise<T>,
  ms: number,
): Promise<{ kind: "done"; value: T } | { kind: "error"; error: unknown } | { kind: "hang" }> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<{ kind: "hang" }>((resolve) => {
    timer = setTimeout(() => resolve({ kind: "hang" }), ms);
  });
  try {
    return await Promise.race([
      work.then(
        (value) => ({ kind: "done" as const, value }),
        (error: unknown) => ({ kind: "error" as const, error }),
      ),
      hang,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

// ── Figures ─────────────────────────────────────────────────────────────────

export type Figures = Record<string, string | number>;

/** A short aligned table on stdout: one row per case, one column per figure. */
export function printFigures(title: string, rows: readonly Figures[], notes: readonly string[] = []): void {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const cell = (row: Figures, column: string) => String(row[column] ?? "");
  const widths = columns.map((column) =>
    Math.max(column.length, ...rows.map((row) => cell(row, column).length)),
  );
  const line = (values: string[]) =>
    values
      .map((value, i) => (i === 0 ? value.padEnd(widths[i] ?? 0) : value.padStart(widths[i] ?? 0)))
      .join("  ");
  const out = [`\n── ${title} ${"─".repeat(Math.max(0, 70 - title.length))}`, line(columns)];
  for (const row of rows) out.push(line(columns.map((column) => cell(row, column))));
  for (const note of notes) out.push(note);
  console.log(out.join("\n"));
}

// ── Setup through the API ───────────────────────────────────────────────────

export interface ApiAnswer<T> {
  status: number;
  body: T;
  headers: Headers;
}

export async function api<T = Record<string, unknown>>(
  method: string,
  path: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<ApiAnswer<T>> {
  const res = await fetch(`${server().url}${path}`, {
    method,
    headers: {
      ...(options.key === undefined ? {} : { authorization: `Bearer ${options.key}` }),
      ...(options.body === undefined ? {} : { "content-type": "application/json" }),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await res.text();
  const parsed = parseJson(text);
  return { status: res.status, body: (parsed.ok ? parsed.value : text) as T, headers: res.headers };
}

/** `api`, throwing with the answer when it is not 2xx: for setup steps that must work. */
export async function apiOk<T = Record<string, unknown>>(
  method: string,
  path: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<ApiAnswer<T>> {
  const answer = await api<T>(method, path, options);
  if (answer.status >= 300) {
    throw new Error(`${method} ${path} → ${answer.status}: ${JSON.stringify(answer.body).slice(0, 500)}`);
  }
  return answer;
}

export interface Workspace {
  uid: string;
  /** An admin key with every scope. */
  key: string;
  keyId: string;
  /** `/v1/workspaces/{uid}`. */
  base: string;
}

export async function createKey(
  ws: { uid: string; key: string },
  scopes: readonly string[],
  actor: string,
): Promise<{ key: string; id: string }> {
  const { body } = await apiOk<{ key: string; id: string }>("POST", `/v1/workspaces/${ws.uid}/keys`, {
    key: ws.key,
    body: { scopes, actor },
  });
  return { key: body.key, id: body.id };
}

export async function createWorkspace(name: string): Promise<Workspace> {
  const { bootstrapKey } = server();
  const { body: created } = await apiOk<{ uid: string }>("POST", "/v1/workspaces", {
    key: bootstrapKey,
    body: { name },
  });
  const admin = await createKey({ uid: created.uid, key: bootstrapKey }, ADMIN_SCOPES, `${name}-admin`);
  return { uid: created.uid, key: admin.key, keyId: admin.id, base: `/v1/workspaces/${created.uid}` };
}

export interface IndexedTool {
  uid: string;
  /** The public name MCP clients call it by. */
  name: string;
}

/** Registers an upstream and indexes it; its tools by upstream name. */
export async function registerService(
  ws: Workspace,
  name: string,
  url: string,
  extra: Record<string, unknown> = {},
): Promise<{ uid: string; tools: Record<string, IndexedTool> }> {
  const { body: created } = await apiOk<{ uid: string }>("POST", `${ws.base}/services`, {
    key: ws.key,
    body: { name, url, ...extra },
  });
  await apiOk("POST", `${ws.base}/services/${created.uid}/refresh`, { key: ws.key });
  // Public names are settled once the service is indexed (a name two services share gets a prefix).
  const { body: listed } = await apiOk<{
    items: { uid: string; name: string | null; upstreamName: string; serviceUid: string }[];
  }>("GET", `${ws.base}/tools?limit=100`, { key: ws.key });
  const tools: Record<string, IndexedTool> = {};
  for (const item of listed.items) {
    if (item.serviceUid === created.uid)
      tools[item.upstreamName] = { uid: item.uid, name: item.name ?? item.upstreamName };
  }
  return { uid: created.uid, tools };
}

/** Saves a draft under the current ETag and returns the saved version number. */
export async function saveDraft(
  ws: Workspace,
  base: string,
  source: string,
  note = "reliability",
): Promise<number> {
  const { headers } = await apiOk("GET", base, { key: ws.key });
  const { body } = await apiOk<{ version: number }>("PUT", `${base}/draft`, {
    key: ws.key,
    body: { source, config: {}, note },
    headers: { "if-match": headers.get("etag") ?? "" },
  });
  return body.version;
}

/** Saves `source` as the target's next version and tests it (`test`: the test console's body), so it can be deployed. */
export async function testedVersion(
  ws: Workspace,
  base: string,
  source: string,
  test: Record<string, unknown>,
): Promise<number> {
  const version = await saveDraft(ws, base, source);
  await apiOk("POST", `${base}/test`, { key: ws.key, body: { ...test, version } });
  return version;
}

/** Draft → test → active deployment of a tool adapter; the revision id. */
export async function deployToolAdapter(
  ws: Workspace,
  toolUid: string,
  source: string,
  test: Record<string, unknown>,
): Promise<string> {
  const base = `${ws.base}/tools/${toolUid}/hook`;
  const version = await testedVersion(ws, base, source, test);
  const { body } = await apiOk<{ revision: { id: string } }>("POST", `${base}/deployments`, {
    key: ws.key,
    body: { version, channel: "active" },
  });
  return body.revision.id;
}

/** Draft → test → active deployment of a workspace file (`lib/…` or `plugins/…`); the revision id. */
export async function deployFile(
  ws: Workspace,
  path: string,
  source: string,
  test: Record<string, unknown>,
): Promise<string> {
  const base = `${ws.base}/files/${encodeURIComponent(path)}`;
  const version = await saveDraft(ws, base, source);
  const { body: run } = await apiOk<{ ok: boolean }>("POST", `${base}/test`, {
    key: ws.key,
    body: { ...test, version },
  });
  if (!run.ok) throw new Error(`testing ${path} failed: ${JSON.stringify(run)}`);
  const { body } = await apiOk<{ revision: { id: string } }>("POST", `${base}/deployments`, {
    key: ws.key,
    body: { version, channel: "active" },
  });
  return body.revision.id;
}

/** Replaces the workspace config with `change(current)` under its ETag. */
export async function updateConfig(
  ws: Workspace,
  change: (config: Record<string, unknown>) => Record<string, unknown>,
): Promise<ApiAnswer<Record<string, unknown>>> {
  const { body, headers } = await apiOk<{ config: Record<string, unknown> }>("GET", `${ws.base}/config`, {
    key: ws.key,
  });
  return api("PUT", `${ws.base}/config`, {
    key: ws.key,
    body: change(body.config),
    headers: { "if-match": headers.get("etag") ?? "" },
  });
}

/**
 * The largest per-minute rate a workspace may configure for `route`, from
 * /v1/limits, or null while the API has no rate limits. A list of allowed
 * values (tiers) decides where there is one; single numbers are defaults.
 */
export function largestRate(all: Record<string, unknown>, route: "mcp" | "llm"): number | null {
  const named = Object.entries(all).filter(([name]) => /per_?minute/i.test(name));
  const values = (kind: "list" | "number") => {
    const matching = named.flatMap(([name, value]): [string, number[]][] => {
      if (kind === "list" && Array.isArray(value))
        return [[name, value.filter((v): v is number => typeof v === "number")]];
      if (kind === "number" && typeof value === "number") return [[name, [value]]];
      return [];
    });
    const own = matching.filter(([name]) => name.toLowerCase().includes(route));
    return (own.length > 0 ? own : matching).flatMap(([, list]) => list);
  };
  const allowed = values("list");
  const candidates = allowed.length > 0 ? allowed : values("number");
  return candidates.length === 0 ? null : Math.max(...candidates);
}

/**
 * Sets the workspace's per-key rate limits on /mcp and /llm to the largest
 * values allowed, where the API has rate limits; what was done, for the figures.
 */
export async function raiseRateLimits(ws: Workspace): Promise<string> {
  const all = await limits();
  const mcp = largestRate(all, "mcp");
  const llm = largestRate(all, "llm");
  if (mcp === null || llm === null) return "rate limits: none in /v1/limits, nothing to configure";
  const saved = await updateConfig(ws, (config) => ({
    ...config,
    rateLimits: { mcpPerMinute: mcp, llmPerMinute: llm },
  }));
  if (saved.status !== 200)
    throw new Error(`setting rateLimits: ${saved.status} ${JSON.stringify(saved.body)}`);
  return `rate limits set to mcpPerMinute ${mcp}, llmPerMinute ${llm}`;
}

export async function putSecret(ws: Workspace, name: string, value: string): Promise<void> {
  await apiOk("PUT", `${ws.base}/secrets/${name}`, { key: ws.key, body: { value } });
}

export async function limits(): Promise<Record<string, unknown>> {
  const { body } = await apiOk("GET", "/v1/limits");
  return body;
}

/** A limit that must be a number. */
export function numericLimit(all: Record<string, unknown>, name: string): number {
  const value = all[name];
  if (typeof value !== "number") throw new Error(`GET /v1/limits has no numeric ${name}`);
  return value;
}

// ── The official MCP client ─────────────────────────────────────────────────

export const REQUEST_ID_META = "rayrun/requestId";
export const ERROR_META = "rayrun/error";

/** An official-SDK MCP client connected to the workspace's gateway endpoint with `key`. */
export async function mcpClient(workspaceUid: string, key: string): Promise<Client> {
  const client = new Client({ name: "rayrun-reliability", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${server().url}/mcp/${workspaceUid}`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  return client;
}

/** The `_meta["rayrun/error"].code` of a refused tool result, or null. */
export function refusalCode(result: { isError?: unknown; _meta?: unknown }): string | null {
  if (result.isError !== true || !isObject(result._meta)) return null;
  const error = result._meta[ERROR_META];
  return isObject(error) && typeof error.code === "string" ? error.code : null;
}

// ── A dev server of the file's own ──────────────────────────────────────────

/** startDevServer's options for a server a file starts itself (scripts/dev-server.mjs documents each). */
export interface OwnServerOptions {
  port: number;
  /** SIM_HOME_RTT_MS: every await on the WorkspaceObject, D1 or R2 waits this long first. */
  simHomeRttMs?: number;
  /** Gateway colos, picked per request with `x-rayrun-colo: n`. */
  colos?: number;
  /** LEASE_MS: the WorkspaceObject's lease length. */
  leaseMs?: number;
  /** SIM_UNSAFE_SKIP_LEASE_WAIT=1: writes return without waiting out older leases. */
  unsafeSkipLeaseWait?: boolean;
}

export interface OwnServer extends ReliabilityServer {
  /** Stops its processes and removes its state. */
  stop: () => Promise<void>;
}

interface StartedDevServer {
  url: string;
  upstreamUrl: string;
  providerUrl: string;
  key: string;
  stop: () => Promise<void> | void;
}

// Plain .mjs without declarations: typed here with the options this file passes.
const devServerModule: string = "../scripts/dev-server.mjs";

/**
 * A dev server (both Workers, the demo upstream and provider) with throw-away
 * state, started as the suite's is (no trace collector, no request log lines).
 */
export async function startOwnServer(options: OwnServerOptions): Promise<OwnServer> {
  const { startDevServer } = (await import(devServerModule)) as {
    startDevServer: (
      options: OwnServerOptions & {
        stateDir: string;
        devVarsPath: string;
        stdio: "inherit" | "ignore";
        observability: boolean;
        logLevel: "warn";
      },
    ) => Promise<StartedDevServer>;
  };
  const dir = mkdtempSync(join(tmpdir(), "rayrun-reliability-own-"));
  try {
    const started = await startDevServer({
      ...options,
      stateDir: join(dir, "state"),
      devVarsPath: join(dir, ".dev.vars"),
      stdio: process.env.RELIABILITY_STDIO === "inherit" ? "inherit" : "ignore",
      observability: false,
      logLevel: "warn",
    });
    return {
      url: started.url,
      port: options.port,
      upstreamUrl: started.upstreamUrl,
      providerUrl: started.providerUrl,
      bootstrapKey: started.key,
      stop: async () => {
        await started.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

// ── Memory ──────────────────────────────────────────────────────────────────

function procText(pid: string, file: string): string | null {
  try {
    return readFileSync(`/proc/${pid}/${file}`, "utf8");
  } catch {
    return null;
  }
}

/** The process group of `pid`, or null once it is gone. */
const groupOf = (pid: string): string | null => {
  const stat = procText(pid, "stat");
  if (stat === null) return null;
  // Fields after the parenthesised command name: state, ppid, pgrp, …
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2] ?? null;
};

/**
 * RSS of the product's workerd processes (the `wrangler dev` serving both
 * Workers on `port`, found by its process group), in MiB per pid; empty where
 * /proc is absent.
 */
export function workerdRss(port: number): { pid: string; role: string; rssMiB: number }[] {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const groups = new Set<string>();
  for (const pid of pids) {
    const args = procText(pid, "cmdline")?.split("\0") ?? [];
    const at = args.indexOf("--port");
    if (args.includes("workers/gateway/wrangler.toml") && at >= 0 && args[at + 1] === String(port)) {
      const group = groupOf(pid);
      if (group !== null) groups.add(group);
    }
  }
  const out: { pid: string; role: string; rssMiB: number }[] = [];
  for (const pid of pids) {
    if (procText(pid, "comm")?.trim() !== "workerd") continue;
    const group = groupOf(pid);
    if (group === null || !groups.has(group)) continue;
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(procText(pid, "status") ?? "")?.[1];
    // wrangler runs two: its proxy listens on the port itself; the runtime with both Workers on a port of its own.
    const proxy = procText(pid, "cmdline")?.includes(`entry=127.0.0.1:${port}\0`) === true;
    if (kb !== undefined)
      out.push({
        pid,
        role: proxy ? "wrangler proxy" : "Workers runtime",
        rssMiB: Math.round(Number(kb) / 1024),
      });
  }
  return out;
}

/** Mostly `usual`, now and then one of `others` (headers that are usually right). */
export function mostly<T>(usual: T, others: readonly T[], weight: number): fc.Arbitrary<T> {
  return fc.oneof(
    { weight, arbitrary: fc.constant(usual) },
    { weight: 1, arbitrary: fc.constantFrom(...others) },
  );
}
