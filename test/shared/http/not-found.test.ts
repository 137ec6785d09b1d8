// Requests no route handles: 405 with Allow when the path has other methods, else 404.
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { notFoundHandler } from "../../../shared/http/not-found";

function app() {
  const a = new Hono();
  // Middleware for every method must not make a path look routed.
  a.use("*", async (_c, next) => next());
  a.use("/guarded/*", async (_c, next) => next());
  a.get("/items", (c) => c.text("list"));
  a.post("/items", (c) => c.text("create"));
  a.delete("/items/:id", (c) => c.text("delete"));
  a.put("/items/:id", (c) => c.text("replace"));
  a.notFound(notFoundHandler(a));
  return a;
}

const problem = async (res: Response) => {
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  return res.json<{ status: number; code: string; detail: string }>();
};

describe("notFoundHandler", () => {
  it("a path no route has answers 404 not_found naming method and path", async () => {
    const res = await app().request("/nothing/here", { method: "PATCH" });
    expect(res.status).toBe(404);
    const doc = await problem(res);
    expect(doc).toMatchObject({ status: 404, code: "not_found" });
    expect(doc.detail).toContain("PATCH /nothing/here");
    expect(res.headers.get("allow")).toBeNull();
  });

  it("a path routed under other methods answers 405 with exactly those methods in Allow", async () => {
    const res = await app().request("/items", { method: "DELETE" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, POST");
    const doc = await problem(res);
    expect(doc.code).toBe("method_not_allowed");
    expect(doc.detail).toContain("GET or POST");
  });

  it("parameterised routes count for the concrete path", async () => {
    const res = await app().request("/items/42", { method: "POST" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("PUT, DELETE");
  });

  it("a path with only middleware is not found", async () => {
    const res = await app().request("/guarded/x");
    expect(res.status).toBe(404);
    expect((await problem(res)).code).toBe("not_found");
  });

  it("the routes themselves still answer", async () => {
    expect(await (await app().request("/items")).text()).toBe("list");
    expect(await (await app().request("/items/1", { method: "DELETE" })).text()).toBe("delete");
  });
});
