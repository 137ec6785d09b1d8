// A service's upstream timeout: set when it is registered or with PATCH,
// bounded, shown as the bound in force, and a bad value changes nothing.
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../../shared/limits";
import { createWorkspace, expectProblem, json } from "../../helpers/api";
import { call, createService, newUpstream, type ServiceBody } from "../../workers/api/services/harness";

const servicesOf = async (ws: string) => (await call("GET", `/v1/workspaces/${ws}/services`)).text();

describe("a service's upstream timeout", () => {
  it("defaults to upstreamTimeoutMs and is shown as the bound in force", async () => {
    const ws = (await createWorkspace()).uid;
    const service = await createService(ws, { name: "plain", url: newUpstream().url });
    expect(service.timeoutMs).toBe(LIMITS.upstreamTimeoutMs);
  });

  it(`limit: ${LIMITS.timeoutMinMs}–${LIMITS.upstreamTimeoutMaxMs} ms at registration; one outside is refused and nothing is stored`, async () => {
    const ws = (await createWorkspace()).uid;
    for (const [name, timeoutMs] of [
      ["shortest", LIMITS.timeoutMinMs],
      ["longest", LIMITS.upstreamTimeoutMaxMs],
    ] as const) {
      expect((await createService(ws, { name, url: newUpstream().url, timeoutMs })).timeoutMs).toBe(
        timeoutMs,
      );
    }
    const before = await servicesOf(ws);
    for (const timeoutMs of [LIMITS.timeoutMinMs - 1, LIMITS.upstreamTimeoutMaxMs + 1, 1000.5, "1000"]) {
      const res = await call("POST", `/v1/workspaces/${ws}/services`, {
        body: { name: "bad", url: newUpstream().url, timeoutMs },
      });
      const problem = await expectProblem(res, 400, "invalid_request");
      expect(problem.errors).toEqual([expect.objectContaining({ path: "/timeoutMs" })]);
    }
    expect(await servicesOf(ws)).toBe(before);
  });

  it("PATCH changes it, null returns to the default; bad bodies and deleted services are refused", async () => {
    const ws = (await createWorkspace()).uid;
    const service = await createService(ws, { name: "docs", url: newUpstream().url });
    const path = `/v1/workspaces/${ws}/services/${service.uid}`;
    const patch = (body: unknown) => call("PATCH", path, { body });
    expect(await json<ServiceBody>(await patch({ timeoutMs: 2500 }), 200)).toMatchObject({
      uid: service.uid,
      timeoutMs: 2500,
      payloadCapture: false,
    });
    expect(await json<ServiceBody>(await call("GET", path), 200)).toMatchObject({ timeoutMs: 2500 });
    expect(await json<ServiceBody>(await patch({ timeoutMs: null }), 200)).toMatchObject({
      timeoutMs: LIMITS.upstreamTimeoutMs,
    });

    const before = await servicesOf(ws);
    await expectProblem(await patch({}), 400, "invalid_request");
    await expectProblem(await patch({ url: "http://elsewhere.test/mcp" }), 400, "invalid_request");
    await expectProblem(await patch({ timeoutMs: LIMITS.upstreamTimeoutMaxMs + 1 }), 400, "invalid_request");
    expect(await servicesOf(ws)).toBe(before);

    await json(await call("DELETE", path), 200);
    await expectProblem(await patch({ timeoutMs: 1000 }), 409, "conflict");
  });
});
