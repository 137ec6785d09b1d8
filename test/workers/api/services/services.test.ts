import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { canonicalJson, sha256Hex } from "../../../../shared/canonical-json";
import { createWorkspace, expectProblem, json } from "../../../helpers/api";
import {
  byName,
  call,
  createService,
  listTools,
  newUpstream,
  refresh,
  snapshot,
  type Page,
  type RefreshBody,
  type ServiceBody,
  type ToolBody,
} from "./harness";

const DEMO_TOOLS = ["always_fails", "echo", "search_release_notes"];

const identities = (r: RefreshBody) => r.tools.map((t) => `${t.uid} ${t.definitionHash}`).toSorted();

/** A snapshot without the service's refresh time. */
const normalize = (text: string) => text.replaceAll(/"refreshed_at":"[^"]+"/g, "");

async function registered(name = "docs") {
  const ws = await createWorkspace();
  const upstream = newUpstream();
  const service = await createService(ws.uid, { name, url: upstream.url });
  return { ws: ws.uid, upstream, service };
}

describe("registering services", () => {
  it("creates a service attributed to the caller, with defaults", async () => {
    const { ws, service, upstream } = await registered();
    expect(service).toMatchObject({
      name: "docs",
      url: upstream.url,
      payloadCapture: false,
      authorizationSecret: null,
      legacy: false,
      createdBy: "bootstrap",
      refreshedAt: null,
      deletedAt: null,
    });
    expect(service.uid).toMatch(/^svc_/);
    expect(await json(await call("GET", `/v1/workspaces/${ws}/services/${service.uid}`), 200)).toEqual(
      service,
    );
  });

  it("stores the payload-capture flag and the authorization secret's name", async () => {
    const ws = await createWorkspace();
    const service = await createService(ws.uid, {
      name: "crm",
      url: "https://mcp.example.com/mcp",
      payloadCapture: true,
      authorizationSecret: "CRM_TOKEN",
    });
    expect(service).toMatchObject({ payloadCapture: true, authorizationSecret: "CRM_TOKEN" });
  });

  it("lists live services in pages", async () => {
    const ws = await createWorkspace();
    for (const name of ["a", "b", "c"]) await createService(ws.uid, { name, url: "https://x.example/mcp" });
    const first = await json<Page<ServiceBody>>(
      await call("GET", `/v1/workspaces/${ws.uid}/services?limit=2`),
      200,
    );
    expect(first.items).toHaveLength(2);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await json<Page<ServiceBody>>(
      await call("GET", `/v1/workspaces/${ws.uid}/services?limit=2&cursor=${first.nextCursor}`),
      200,
    );
    expect(second.nextCursor).toBeNull();
    expect([...first.items, ...second.items].map((s) => s.name).toSorted()).toEqual(["a", "b", "c"]);
  });

  it("refuses a second live service with the same name", async () => {
    const { ws } = await registered("docs");
    const before = await snapshot(ws);
    await expectProblem(
      await call("POST", `/v1/workspaces/${ws}/services`, {
        body: { name: "docs", url: "https://y.example/" },
      }),
      409,
      "conflict",
    );
    expect(await snapshot(ws)).toBe(before);
  });

  it("refuses bad bodies and stores nothing", async () => {
    const ws = (await createWorkspace()).uid;
    const before = await snapshot(ws);
    const bad: unknown[] = [
      {},
      { name: "docs" },
      { url: "https://x.example/" },
      { name: "docs", url: "ftp://x.example/" },
      { name: "docs", url: "javascript:alert(1)" },
      { name: "docs", url: "not a url" },
      { name: "docs", url: "/relative/mcp" },
      { name: "docs", url: "https://user:pass@x.example/" },
      { name: "Docs", url: "https://x.example/" },
      { name: "a__b", url: "https://x.example/" },
      { name: "docs_", url: "https://x.example/" },
      { name: "", url: "https://x.example/" },
      { name: "x".repeat(65), url: "https://x.example/" },
      { name: "docs", url: "https://x.example/", payloadCapture: "yes" },
      { name: "docs", url: "https://x.example/", authorizationSecret: "has space" },
      { name: "docs", url: "https://x.example/", extra: 1 },
      [],
      "docs",
    ];
    for (const body of bad) {
      const problem = await expectProblem(
        await call("POST", `/v1/workspaces/${ws}/services`, { body: JSON.stringify(body) }),
        400,
        "invalid_request",
      );
      expect({ body, errors: problem.errors }).toEqual({ body, errors: expect.any(Array) });
    }
    await expectProblem(
      await call("POST", `/v1/workspaces/${ws}/services`, { body: "{not json" }),
      400,
      "invalid_json",
    );
    await expectProblem(
      await call("POST", `/v1/workspaces/${ws}/services`, {
        body: "name=docs",
        headers: { "content-type": "application/x-www-form-urlencoded" },
      }),
      415,
      "unsupported_media_type",
    );
    await expectProblem(await call("GET", `/v1/workspaces/${ws}/services?limit=0`), 400, "invalid_request");
    await expectProblem(
      await call("GET", `/v1/workspaces/${ws}/services?deleted=maybe`),
      400,
      "invalid_request",
    );
    expect(await snapshot(ws)).toBe(before);
  });

  it("answers 404 for unknown workspaces and services", async () => {
    const ws = (await createWorkspace()).uid;
    const before = await snapshot(ws);
    await expectProblem(
      await call("POST", "/v1/workspaces/ws_missing/services", {
        body: { name: "a", url: "https://x.example/" },
      }),
      404,
      "workspace_not_found",
    );
    await expectProblem(await call("GET", "/v1/workspaces/ws_missing/services"), 404, "workspace_not_found");
    for (const [method, path] of [
      ["GET", "/services/svc_missing"],
      ["POST", "/services/svc_missing/refresh"],
      ["DELETE", "/services/svc_missing"],
      ["GET", "/services/svc_missing/history"],
      ["GET", "/tools/tool_missing"],
      ["POST", "/tools/tool_missing/review/accept"],
    ] as const) {
      await expectProblem(await call(method, `/v1/workspaces/${ws}${path}`), 404, "not_found");
    }
    expect(await snapshot(ws)).toBe(before);
  });
});

describe("refreshing the tool index", () => {
  it("indexes the upstream's tools with their schemas and definition hashes", async () => {
    const { ws, service } = await registered();
    const summary = await refresh(ws, service.uid);
    expect(summary).toMatchObject({ added: DEMO_TOOLS, changed: [], removed: [], unchanged: [] });
    expect(summary.service.refreshedAt).toEqual(expect.any(String));
    const tools = byName(summary.tools);
    expect(Object.keys(tools).toSorted()).toEqual(DEMO_TOOLS);

    const search = tools.search_release_notes;
    expect(search).toMatchObject({
      name: "search_release_notes",
      serviceUid: service.uid,
      serviceName: "docs",
      connectionId: service.uid,
      description: "Search release notes",
      reviewState: "accepted",
      pendingHash: null,
      removedAt: null,
      inputSchema: {
        type: "object",
        properties: { q: { type: "string" } },
        required: ["q"],
        $schema: expect.stringContaining("json-schema.org"),
      },
      outputSchema: { type: "object", properties: { items: { type: "array" } } },
    });
    expect(search?.uid).toMatch(/^tool_/);
    expect(tools.echo?.outputSchema).toBeNull();

    // The hash covers exactly name, description and both schemas, as canonical JSON.
    for (const tool of summary.tools) {
      const expected = await sha256Hex(
        canonicalJson({
          name: tool.upstreamName,
          description: tool.description ?? undefined,
          inputSchema: tool.inputSchema,
          outputSchema: tool.outputSchema ?? undefined,
        }),
      );
      expect(tool.definitionHash).toBe(expected);
    }

    expect((await listTools(ws)).map((t) => t.uid).toSorted()).toEqual(
      summary.tools.map((t) => t.uid).toSorted(),
    );
    const one = await json<ToolBody>(await call("GET", `/v1/workspaces/${ws}/tools/${search?.uid}`), 200);
    expect(one).toMatchObject({ ...search, serviceDeleted: false });
  });

  it("a second refresh changes nothing and keeps every uid", async () => {
    const { ws, service } = await registered();
    const first = await refresh(ws, service.uid);
    const tables = await snapshot(ws);
    const second = await refresh(ws, service.uid);
    expect(second).toMatchObject({ added: [], changed: [], removed: [], unchanged: DEMO_TOOLS });
    expect(identities(second)).toEqual(identities(first));
    // Only the service's refresh time moved.
    expect(normalize(await snapshot(ws))).toBe(normalize(tables));
  });

  it("a changed definition needs review until a hooks:write key accepts it", async () => {
    const { ws, service, upstream } = await registered();
    const first = byName((await refresh(ws, service.uid)).tools);
    const accepted = first.echo;
    if (!accepted) throw new Error("echo was not indexed");

    await upstream.variant("v2");
    const summary = await refresh(ws, service.uid);
    expect(summary).toMatchObject({
      added: [],
      changed: ["echo"],
      removed: [],
      unchanged: ["always_fails", "search_release_notes"],
    });
    const changed = byName(summary.tools).echo;
    expect(changed).toMatchObject({
      uid: accepted.uid,
      reviewState: "review_required",
      // The accepted definition stays in force until the change is accepted.
      definitionHash: accepted.definitionHash,
      description: "Echo the text back",
      inputSchema: accepted.inputSchema,
      pendingHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      pendingDefinition: {
        name: "echo",
        description: "Echo the text back, louder",
        inputSchema: { properties: { text: { type: "string" }, loud: { type: "boolean" } } },
      },
    });
    expect(changed?.pendingHash).not.toBe(accepted.definitionHash);

    // Refreshing again while the review is pending changes nothing.
    expect(await refresh(ws, service.uid)).toMatchObject({ changed: [], unchanged: DEMO_TOOLS });

    const accept = await json<ToolBody>(
      await call("POST", `/v1/workspaces/${ws}/tools/${accepted.uid}/review/accept`),
      200,
    );
    expect(accept).toMatchObject({
      uid: accepted.uid,
      reviewState: "accepted",
      definitionHash: changed?.pendingHash,
      description: "Echo the text back, louder",
      inputSchema: { properties: { loud: { type: "boolean" } } },
      pendingHash: null,
      pendingDefinition: null,
      acceptedBy: "bootstrap",
    });
    expect(await refresh(ws, service.uid)).toMatchObject({ changed: [], unchanged: DEMO_TOOLS });

    // Nothing is pending any more.
    await expectProblem(
      await call("POST", `/v1/workspaces/${ws}/tools/${accepted.uid}/review/accept`),
      409,
      "conflict",
    );
  });

  it("accepting binds the reviewed hash when one is given", async () => {
    const { ws, service, upstream } = await registered();
    const echo = byName((await refresh(ws, service.uid)).tools).echo;
    await upstream.variant("v2");
    const pending = byName((await refresh(ws, service.uid)).tools).echo?.pendingHash;
    const path = `/v1/workspaces/${ws}/tools/${echo?.uid}/review/accept`;

    const before = await snapshot(ws);
    await expectProblem(
      await call("POST", path, { body: { definitionHash: "0".repeat(64) } }),
      409,
      "conflict",
    );
    await expectProblem(
      await call("POST", path, { body: { definitionHash: "nope" } }),
      400,
      "invalid_request",
    );
    await expectProblem(await call("POST", path, { body: { other: 1 } }), 400, "invalid_request");
    await expectProblem(await call("POST", path, { body: "{" }), 400, "invalid_json");
    expect(await snapshot(ws)).toBe(before);

    const accepted = await json<ToolBody>(
      await call("POST", path, { body: { definitionHash: pending } }),
      200,
    );
    expect(accepted).toMatchObject({ reviewState: "accepted", definitionHash: pending });
  });

  it("a definition changing back to the accepted one needs no review", async () => {
    const { ws, service, upstream } = await registered();
    const echo = byName((await refresh(ws, service.uid)).tools).echo;
    await upstream.variant("v2");
    await refresh(ws, service.uid);
    await upstream.variant("v1");
    const summary = await refresh(ws, service.uid);
    expect(summary.changed).toEqual(["echo"]);
    expect(byName(summary.tools).echo).toMatchObject({
      reviewState: "accepted",
      definitionHash: echo?.definitionHash,
      pendingHash: null,
      pendingDefinition: null,
    });
  });

  it("tools that disappear upstream are marked removed, kept, and come back with their uid", async () => {
    const { ws, service, upstream } = await registered();
    const first = byName((await refresh(ws, service.uid)).tools);

    await upstream.hide(["always_fails"]);
    const summary = await refresh(ws, service.uid);
    expect(summary).toMatchObject({
      added: [],
      removed: ["always_fails"],
      unchanged: ["echo", "search_release_notes"],
    });
    expect(summary.tools.map((t) => t.upstreamName).toSorted()).toEqual(["echo", "search_release_notes"]);

    const removed = await json<ToolBody>(
      await call("GET", `/v1/workspaces/${ws}/tools/${first.always_fails?.uid}`),
      200,
    );
    expect(removed).toMatchObject({
      removedAt: expect.any(String),
      name: null,
      upstreamName: "always_fails",
    });
    // Still listed (hook history may reference it), marked removed.
    expect(byName(await listTools(ws)).always_fails?.removedAt).toEqual(expect.any(String));

    // A removed tool cannot be reviewed.
    await upstream.hide([]);
    const back = await refresh(ws, service.uid);
    expect(back.added).toEqual(["always_fails"]);
    expect(byName(back.tools).always_fails).toMatchObject({
      uid: first.always_fails?.uid,
      removedAt: null,
      name: "always_fails",
      reviewState: "accepted",
    });
  });

  it("a tool that comes back changed needs review", async () => {
    const { ws, service, upstream } = await registered();
    const echo = byName((await refresh(ws, service.uid)).tools).echo;
    await upstream.hide(["echo"]);
    await refresh(ws, service.uid);
    await upstream.variant("v2");
    await upstream.hide([]);
    const back = byName((await refresh(ws, service.uid)).tools).echo;
    expect(back).toMatchObject({ uid: echo?.uid, reviewState: "review_required", removedAt: null });
  });

  it("accepting a removed tool's pending change is refused", async () => {
    const { ws, service, upstream } = await registered();
    const echo = byName((await refresh(ws, service.uid)).tools).echo;
    await upstream.variant("v2");
    await refresh(ws, service.uid);
    await upstream.hide(["echo"]);
    await refresh(ws, service.uid);
    const before = await snapshot(ws);
    await expectProblem(
      await call("POST", `/v1/workspaces/${ws}/tools/${echo?.uid}/review/accept`),
      409,
      "conflict",
    );
    expect(await snapshot(ws)).toBe(before);
  });

  it("follows tools/list pagination", async () => {
    const { ws, service, upstream } = await registered();
    await upstream.pageSize(1);
    const summary = await refresh(ws, service.uid);
    expect(summary.added).toEqual(DEMO_TOOLS);
  });

  it("indexes a large service, and marks many removed tools at once", async () => {
    const { ws, service, upstream } = await registered();
    await upstream.extraTools(150);
    await upstream.pageSize(40);
    const first = await refresh(ws, service.uid);
    expect(first.added).toHaveLength(153);
    expect(new Set(first.tools.map((t) => t.uid)).size).toBe(153);
    expect(await refresh(ws, service.uid)).toMatchObject({ added: [], changed: [], removed: [] });
    await upstream.extraTools(0);
    const shrunk = await refresh(ws, service.uid);
    expect(shrunk.removed).toHaveLength(150);
    expect(shrunk.unchanged).toEqual(DEMO_TOOLS);
  });

  it("answers 502 upstream_unavailable and stores nothing when the upstream fails", async () => {
    const ws = (await createWorkspace()).uid;
    const upstream = newUpstream();
    const broken = [
      // Not an MCP endpoint (404), and a host tests never reach.
      await createService(ws, { name: "wrong-path", url: upstream.url.replace(/\/mcp$/, "/nothing") }),
      await createService(ws, { name: "offline", url: "https://offline.example/mcp" }),
    ];
    const before = await snapshot(ws);
    for (const service of broken) {
      const problem = await expectProblem(
        await call("POST", `/v1/workspaces/${ws}/services/${service.uid}/refresh`),
        502,
        "upstream_unavailable",
      );
      expect(problem).toMatchObject({
        service: service.uid,
        reason: "unreachable",
        message: expect.any(String),
      });
    }
    expect(await snapshot(ws)).toBe(before);
  });

  it("a failing refresh keeps the previous index", async () => {
    const { ws, service } = await registered();
    await refresh(ws, service.uid);
    await env.DB.prepare("update services set url = ? where uid = ?")
      .bind("https://offline.example/mcp", service.uid)
      .run();
    const before = await snapshot(ws);
    await expectProblem(
      await call("POST", `/v1/workspaces/${ws}/services/${service.uid}/refresh`),
      502,
      "upstream_unavailable",
    );
    expect(await snapshot(ws)).toBe(before);
  });

  it("a service naming an authorization secret that is not set cannot refresh", async () => {
    const ws = (await createWorkspace()).uid;
    const upstream = newUpstream();
    const service = await createService(ws, {
      name: "auth",
      url: upstream.url,
      authorizationSecret: "TOKEN",
    });
    const before = await snapshot(ws);
    await expectProblem(
      await call("POST", `/v1/workspaces/${ws}/services/${service.uid}/refresh`),
      409,
      "conflict",
    );
    expect(await upstream.calls()).toEqual([]);
    expect(await snapshot(ws)).toBe(before);
  });

  it("the tool list filters by service and validates its query", async () => {
    const ws = (await createWorkspace()).uid;
    const a = await createService(ws, { name: "a", url: newUpstream().url });
    const b = await createService(ws, { name: "b", url: newUpstream().url });
    await refresh(ws, a.uid);
    await refresh(ws, b.uid);
    expect(await listTools(ws)).toHaveLength(6);
    const onlyA = await listTools(ws, `service=${a.uid}`);
    expect(onlyA.map((t) => t.serviceUid)).toEqual([a.uid, a.uid, a.uid]);
    await expectProblem(await call("GET", `/v1/workspaces/${ws}/tools?limit=500`), 400, "invalid_request");
  });
});
