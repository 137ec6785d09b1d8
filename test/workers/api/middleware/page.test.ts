// Paging parameters and the query validator: bounds at the limit pass, one
// over fails, and every refusal names its field.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { pageQuery, PageQuery } from "../../../../workers/api/middleware/page";
import { validQuery } from "../../../../workers/api/middleware/validate";
import { expectProblem, send, testApp } from "./app";

const app = testApp().get("/items", pageQuery, (c) => c.json(c.req.valid("query")));
const page = async (query: string) => send(app, `/items${query}`);

const MAX_LIMIT = PageQuery.shape.limit.unwrap().maxValue ?? Number.NaN;
const MAX_CURSOR = PageQuery.shape.cursor.unwrap().maxLength ?? Number.NaN;

describe("pageQuery", () => {
  it("without parameters the page has the default limit and no cursor", async () => {
    const res = await page("");
    expect(res.status).toBe(200);
    const body = await res.json<{ limit: number; cursor?: string }>();
    expect(body.limit).toBeGreaterThanOrEqual(1);
    expect(body.limit).toBeLessThanOrEqual(MAX_LIMIT);
    expect(body).not.toHaveProperty("cursor");
  });

  it("limits from 1 to the maximum pass, as numbers", async () => {
    for (const limit of [1, MAX_LIMIT]) {
      const res = await page(`?limit=${limit}`);
      expect(await res.json()).toEqual({ limit });
    }
  });

  it("a limit of 0, one over the maximum, a fraction or a word is a 400 naming /limit", async () => {
    for (const limit of ["0", String(MAX_LIMIT + 1), "1.5", "ten", "-1"]) {
      const body = await expectProblem(await page(`?limit=${limit}`), 400, "invalid_request");
      expect(body.detail).toBe("Invalid paging parameters.");
      expect(
        body.errors?.map((e) => e.path),
        limit,
      ).toEqual(["/limit"]);
    }
  });

  it("a cursor of the maximum length passes; one character more, or an empty one, is a 400 naming /cursor", async () => {
    const at = "c".repeat(MAX_CURSOR);
    expect(await (await page(`?cursor=${at}`)).json()).toMatchObject({ cursor: at });
    for (const cursor of ["c".repeat(MAX_CURSOR + 1), ""]) {
      const body = await expectProblem(await page(`?cursor=${cursor}`), 400, "invalid_request");
      expect(body.errors?.map((e) => e.path)).toEqual(["/cursor"]);
    }
  });

  it("every failing field is named at once", async () => {
    const body = await expectProblem(await page(`?limit=0&cursor=`), 400, "invalid_request");
    expect(body.errors?.map((e) => e.path).toSorted()).toEqual(["/cursor", "/limit"]);
  });
});

describe("validQuery", () => {
  it("says its default detail when the route gives none", async () => {
    const strict = testApp().get("/q", validQuery(z.object({ n: z.coerce.number().int() })), (c) =>
      c.json(c.req.valid("query")),
    );
    const body = await expectProblem(await send(strict, "/q?n=x"), 400, "invalid_request");
    expect(body.detail).toBe("Invalid query parameters.");
    expect(await (await send(strict, "/q?n=3")).json()).toEqual({ n: 3 });
  });
});
