// Helpers for the request-hook tests: a workspace with deployed `lib/` files
// (through the API's draft → test → deploy flow), its config written with
// If-Match, a neutral request, and `runRequestHook` called directly with the
// test Worker's bindings.
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { createOrReuseRevision } from "../../../shared/deploy/revisions";
import { parseFilePath } from "../../../shared/files/paths";
import type { NeutralRequest, Tool } from "../../../shared/llm/request";
import { compileWorkspaceFile } from "../../../workers/api/compiler";
import { runRequestHook, type RequestHookOutcome } from "../../../shared/llm/request-hook";
import { createKey, createWorkspace } from "../../helpers/api";
import { deployFileSource, setConfig } from "../../helpers/files";

export interface HookWorkspace {
  ws: string;
  /** hooks:read + hooks:write. */
  key: string;
  /** A fake provider of its own (`http://provider.test/<id>/…`), so parallel files never share traffic. */
  providerId: string;
}

export async function hookWorkspace(): Promise<HookWorkspace> {
  const { uid } = await createWorkspace("request-hooks");
  const { key } = await createKey(uid, ["hooks:read", "hooks:write"], "hook-author");
  return { ws: uid, key, providerId: `rh-${crypto.randomUUID()}` };
}

/**
 * A harmless export appended to every deployed file: a version must have one
 * completed test run to be deployable, and the functions under test may fail
 * on purpose.
 */
export const PROBE_EXPORT = "probe";
const PROBE_SOURCE = `\nexport function ${PROBE_EXPORT}() { return "ok"; }\n`;

/** Saves `source` (plus the probe) as a new version of `path`, tests the probe, deploys it; returns the revision id. */
export const deployLib = (
  w: HookWorkspace,
  path: string,
  source: string,
  channel: "active" | "shadow" = "active",
): Promise<string> =>
  deployFileSource(w, path, source + PROBE_SOURCE, { export: PROBE_EXPORT, input: {} }, channel);

export { setConfig };

/** `providers.openai` pointing at the workspace's own fake provider. */
export const fakeOpenai = (w: HookWorkspace) => ({
  openai: { baseUrl: `http://provider.test/${w.providerId}/v1` },
});

/** What the workspace's fake provider received so far. */
export async function providerReceived(w: HookWorkspace): Promise<{ path: string; body: unknown }[]> {
  const res = await fetch(`http://provider.test/${w.providerId}/_received`);
  return res.json<{ path: string; body: unknown }[]>();
}

export const TOOLS: Tool[] = [
  { name: "fs_read", description: "Read a file", inputSchema: { type: "object" } },
  { name: "fs_write", description: "Write a file", inputSchema: { type: "object" } },
  { name: "web_search", inputSchema: { type: "object", properties: { q: { type: "string" } } } },
  { name: "shell", inputSchema: { type: "object" } },
];

/** A request with a tool round trip, so pairing rules have something to check. */
export function sampleRequest(overrides: Partial<NeutralRequest> = {}): NeutralRequest {
  return {
    model: "gpt-test",
    system: "You are helpful.",
    messages: [
      { role: "user", content: "Read notes.txt" },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "call_1", name: "fs_read", input: { path: "notes.txt" } }],
      },
      {
        role: "user",
        content: [{ type: "tool_result", toolUseId: "call_1", content: "hello" }],
      },
    ],
    tools: structuredClone(TOOLS),
    options: { maxTokens: 256, temperature: 0.2 },
    ...overrides,
  };
}

type HostOverrides = Partial<Parameters<typeof runRequestHook>[2]>;

/** Runs the workspace's request hook for one call of `loop`. */
export function runHook(
  w: HookWorkspace,
  loop: string,
  request: NeutralRequest = sampleRequest(),
  options: { requestId?: string; bypass?: boolean; host?: HostOverrides } = {},
): Promise<RequestHookOutcome> {
  const requestId = options.requestId ?? crypto.randomUUID();
  return runRequestHook(
    env,
    {
      workspaceUid: w.ws,
      loop,
      request,
      requestId,
      ...(options.bypass === undefined ? {} : { bypass: options.bypass }),
    },
    { env, workspaceUid: w.ws, requestId, ...options.host },
  );
}

/** The transformed request, failing the test with the outcome otherwise. */
export function transformed(outcome: RequestHookOutcome): NeutralRequest {
  expect(outcome.kind, JSON.stringify(outcome)).toBe("transformed");
  if (outcome.kind !== "transformed") throw new Error("unreachable");
  return outcome.request;
}

/** The failure of a failed outcome, failing the test otherwise; never carries a request. */
export function failed(outcome: RequestHookOutcome): Extract<RequestHookOutcome, { kind: "failed" }> {
  expect(outcome.kind, JSON.stringify(outcome)).toBe("failed");
  if (outcome.kind !== "failed") throw new Error("unreachable");
  expect(outcome).not.toHaveProperty("request");
  return outcome;
}

/** A hook config for `lib/request-policy.ts:transform` with the given scope fields. */
export const hookConfig = (fields: Record<string, unknown> = {}) => ({
  source: "lib/request-policy.ts:transform",
  scope: "all",
  ...fields,
});

/** A file whose `transform` tags the request with the loop it saw (in options.dynamicInstructions). */
export const TAGGING_HOOK = `
export function transform({ request, loop }) {
  return { ...request, options: { ...request.options, dynamicInstructions: "hooked:" + loop.name } };
}
`;

/**
 * Deploys `source` as `path` without a test run, the way a file whose top level
 * fails at run time would have to be (the test console runs the top level too,
 * so the API never deploys one): compiled by the real compiler, stored as a
 * revision and pointed at through the WorkspaceObject, as the deploy route does.
 */
export async function deployUntested(w: HookWorkspace, path: string, source: string): Promise<string> {
  const file = parseFilePath(path);
  if (!file.ok) throw new Error(file.error);
  const compiled = await compileWorkspaceFile({ file: file.value, source });
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.error));
  const stub = env.WORKSPACE.getByName(w.ws);
  const target = `file:${path}`;
  const head = await stub.getHead(w.ws, target);
  const { revision } = await createOrReuseRevision(env, {
    workspaceUid: w.ws,
    target,
    generation: head.generation,
    version: Math.max(1, head.version),
    code: compiled.value.code,
    codeHash: compiled.value.hash,
    publicContract: null,
    stages: [],
    exports: compiled.value.exports,
    config: compiled.value.config,
    definitionHash: "",
    actor: "test",
    keyId: "test",
  });
  const moved = await stub.setPointer(target, "active", revision.id, revision.compiledBytes, Date.now());
  expect(moved.kind).toBe("set");
  return revision.id;
}
