import { describe, expect, it } from "vitest";
import { app } from "../../../../workers/api/app";
import { json, call } from "../../../helpers/api";

describe("GET /v1/openapi.json", () => {
  it("describes every mounted /v1 route, and nothing that is not mounted", async () => {
    const doc = await json<{ paths: Record<string, Record<string, unknown>> }>(
      await call("GET", "/v1/openapi.json", { key: null }),
      200,
    );
    const described = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    const mounted = [
      ...new Set(
        app.routes
          .filter((r) => r.path.startsWith("/v1/") && r.method !== "ALL")
          .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, "{$1}")}`),
      ),
    ];
    expect(described.toSorted()).toEqual(mounted.toSorted());
  });

  it("takes request bodies from the schemas the routes validate with", async () => {
    const doc = await json<{
      paths: Record<
        string,
        Record<string, { requestBody?: { content: Record<string, { schema: { required?: string[] } }> } }>
      >;
    }>(await call("GET", "/v1/openapi.json", { key: null }), 200);
    const deploy = doc.paths["/v1/workspaces/{ws}/tools/{tool}/hook/deployments"]?.post;
    expect(deploy?.requestBody?.content["application/json"]?.schema.required?.toSorted()).toEqual([
      "channel",
      "version",
    ]);
  });
});
