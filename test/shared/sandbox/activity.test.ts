// Requests in flight (shared/sandbox/activity.ts): what warm-pool refills wait on.
import { describe, expect, it } from "vitest";
import worker from "../../../workers/gateway/index";
import { isolateRequests, RequestActivity } from "../../../shared/sandbox";
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";

describe("requests in flight", () => {
  it("is busy until every tracked request settles, including one that throws, then wakes its waiters", async () => {
    const requests = new RequestActivity();
    await requests.quiet(); // nothing in flight: resolves at once
    const first = Promise.withResolvers<string>();
    const second = Promise.withResolvers<string>();
    const a = requests.track(() => first.promise);
    const b = requests.track(() => second.promise).catch((error: unknown) => String(error));
    let woken = false;
    const quiet = requests.quiet().then(() => (woken = true));
    first.resolve("a");
    expect(await a).toBe("a");
    await Promise.resolve();
    expect(requests.busy).toBe(true);
    expect(woken).toBe(false);
    second.reject(new Error("boom"));
    expect(await b).toBe("Error: boom");
    await quiet;
    expect(woken).toBe(true);
    expect(requests.busy).toBe(false);
  });

  it("the gateway's fetch handler counts each request while it is handled", async () => {
    expect(isolateRequests.busy).toBe(false);
    const pending = worker.fetch(
      new Request("http://gateway.test/mcp/ws_none", { method: "GET" }),
      env,
      createExecutionContext(),
    );
    expect(isolateRequests.busy).toBe(true);
    expect((await pending).status).toBe(405);
    expect(isolateRequests.busy).toBe(false);
  });
});
