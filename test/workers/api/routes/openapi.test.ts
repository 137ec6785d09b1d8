import { describe, expect, it } from "vitest";
import { app } from "../../../../workers/api/app";
import { json, call } from "../../../helpers/api";

interface Operation {
  parameters?: { name: string; in: string; description?: string }[];
  requestBody?: { required?: boolean; content: Record<string, { schema: { required?: string[] } }> };
  responses: Record<string, unknown>;
  "x-rayrun-auth"?: string;
  security?: unknown[];
}
interface Document {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, Record<string, unknown>>;
}

const fetchDocument = async () => json<Document>(await call("GET", "/v1/openapi.json", { key: null }), 200);

/** Every `$ref` in `value`. */
function refsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refsIn);
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    key === "$ref" && typeof inner === "string" ? [inner] : refsIn(inner),
  );
}

/** What a local `#/…` reference points at, or undefined. */
function resolve(doc: unknown, ref: string): unknown {
  return ref
    .slice(2)
    .split("/")
    .map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"))
    .reduce<unknown>(
      (node, part) => (node !== null && typeof node === "object" ? Reflect.get(node, part) : undefined),
      doc,
    );
}

describe("GET /v1/openapi.json", () => {
  it("describes every mounted /v1 route, and nothing that is not mounted", async () => {
    const doc = await fetchDocument();
    const described = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith("/v1/"))
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    const mounted = [
      ...new Set(
        app.routes
          .filter((r) => r.path.startsWith("/v1/") && r.method !== "ALL")
          .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, "{$1}")}`),
      ),
    ];
    expect(described.toSorted()).toEqual(mounted.toSorted());
  });

  it("describes the gateway's MCP endpoint and both LLM proxy routes", async () => {
    const doc = await fetchDocument();
    const gateway = Object.entries(doc.paths)
      .filter(([path]) => !path.startsWith("/v1/"))
      .flatMap(([path, item]) =>
        Object.keys(item)
          .filter((key) => key !== "parameters")
          .map((m) => `${m.toUpperCase()} ${path}`),
      );
    expect(gateway.toSorted()).toEqual([
      "DELETE /mcp/{ws}",
      "GET /mcp/{ws}",
      "POST /llm/{ws}/anthropic/v1/messages",
      "POST /llm/{ws}/openai/v1/chat/completions",
      "POST /mcp/{ws}",
    ]);
  });

  it("resolves every reference inside the document", async () => {
    const doc = await fetchDocument();
    const refs = [...new Set(refsIn(doc))];
    expect(refs.length).toBeGreaterThan(0);
    expect(refs.filter((ref) => !ref.startsWith("#/") || resolve(doc, ref) === undefined)).toEqual([]);
  });

  it("takes request bodies and query parameters from the schemas the routes validate with", async () => {
    const doc = await fetchDocument();
    const deploy = doc.paths["/v1/workspaces/{ws}/tools/{tool}/hook/deployments"]?.post;
    expect(deploy?.requestBody?.content["application/json"]?.schema.required?.toSorted()).toEqual([
      "channel",
      "version",
    ]);
    const services = doc.paths["/v1/workspaces/{ws}/services"]?.get;
    expect(services?.parameters?.filter((p) => p.in === "query").map((p) => p.name)).toEqual([
      "limit",
      "cursor",
      "deleted",
    ]);
    // A refused body or query is one of our problem documents, not the library's default shape.
    expect(deploy?.responses["400"]).toEqual(services?.responses["400"]);
  });

  it("declares the schema of every successful answer that has a body", async () => {
    const doc = await fetchDocument();
    // 204 and 202 (the MCP endpoint's accepted notifications) carry no body.
    const withoutSchema = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([key]) => key !== "parameters")
        .flatMap(([method, op]) =>
          Object.entries(op.responses)
            .filter(([status]) => /^2\d\d$/.test(status) && status !== "204" && status !== "202")
            .filter(([, answer]) => {
              const { content } = answer as { content?: Record<string, { schema?: unknown }> };
              const media = Object.values(content ?? {});
              return media.length === 0 || media.some((m) => m.schema === undefined);
            })
            .map(([status]) => `${method.toUpperCase()} ${path} ${status}`),
        ),
    );
    expect(withoutSchema).toEqual([]);
  });

  it("takes answers from the schemas the handlers shape them with", async () => {
    const doc = await fetchDocument();
    interface Schema {
      $ref?: string;
      properties?: Record<string, Schema>;
      items?: Schema;
    }
    /** A JSON schema, its reference followed. */
    const deref = (schema: unknown): Schema => {
      const s = (schema ?? {}) as Schema;
      return s.$ref === undefined ? s : deref(resolve(doc, s.$ref));
    };
    const propertiesOf = (schema: unknown): string[] =>
      Object.keys(deref(schema).properties ?? {}).toSorted();
    const answerOf = (path: string, method: string, status = "200") => {
      const answer = doc.paths[path]?.[method]?.responses[status] as
        | { content?: Record<string, { schema: unknown }> }
        | undefined;
      return answer?.content?.["application/json"]?.schema;
    };
    expect(propertiesOf(answerOf("/v1/workspaces/{ws}/tools/{tool}/hook", "get"))).toEqual([
      "deployments",
      "draft",
    ]);
    expect(
      propertiesOf(answerOf("/v1/workspaces/{ws}/tools/{tool}/hook/deployments", "post", "201")),
    ).toEqual(["channel", "reused", "revision"]);
    // Pages describe their items.
    const services = deref(answerOf("/v1/workspaces/{ws}/services", "get"));
    const item = deref(services.properties?.items).items;
    expect(propertiesOf(item)).toEqual(expect.arrayContaining(["uid", "url"]));
  });

  it("declares auth, body and file-path refusals where the middlewares enforce them", async () => {
    const doc = await fetchDocument();
    const save = doc.paths["/v1/workspaces/{ws}/files/{path}/draft"]?.put;
    expect(save?.["x-rayrun-auth"]).toBe("hooks:write");
    expect(Object.keys(save?.responses ?? {})).toEqual(
      expect.arrayContaining(["200", "400", "401", "403", "404", "409", "412", "413", "415", "422", "428"]),
    );
    expect(save?.parameters?.find((p) => p.name === "path")?.description).toMatch(/URL-encoded/);
    expect(save?.parameters?.find((p) => p.name === "If-Match")).toMatchObject({ in: "header" });
    expect(doc.paths["/v1/limits"]?.get?.security).toEqual([]);
    expect(doc.paths["/v1/workspaces"]?.post?.["x-rayrun-auth"]).toBe("platform");
  });
});
