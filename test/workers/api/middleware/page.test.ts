// Paging parameters and the query validator: bounds at the limit pass, one
// over fails, and every refusal names its field. Then the one pagination
// helper every list goes through: one row over the limit, the cursor of the
// last row, and the 400 a cursor the list could not have given gets.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ProblemException } from "../../../../shared/http/problem";
import {
  decodeCursor,
  encodeCursor,
  pageQuery,
  PageQuery,
  paginate,
} from "../../../../workers/api/middleware/page";
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

// Keys "k01" … "k07", newest first like the lists; `after` is exclusive.
const ROWS = Array.from({ length: 7 }, (_, i) => ({ key: `k${String(7 - i).padStart(2, "0")}` }));
const asked: { after: string | undefined; take: number }[] = [];
const fetchRows = async (after: string | undefined, take: number) => {
  asked.push({ after, take });
  const start = after === undefined ? 0 : ROWS.findIndex((r) => r.key === after) + 1;
  return ROWS.slice(start, start + take);
};
const keyOf = (row: { key: string }) => row.key;

async function problemOf(run: () => Promise<unknown>) {
  try {
    await run();
  } catch (error) {
    if (error instanceof ProblemException) return error.problem;
    throw error;
  }
  throw new Error("expected a problem");
}

describe("paginate", () => {
  it("asks for one row over the limit; exactly the limit left is the last page (nextCursor null)", async () => {
    asked.length = 0;
    const whole = await paginate({ limit: 7 }, fetchRows, keyOf);
    expect(asked).toEqual([{ after: undefined, take: 8 }]);
    expect(whole.items.map(keyOf)).toEqual(ROWS.map(keyOf));
    expect(whole.nextCursor).toBeNull();
  });

  it("one row over the limit gives the limit's rows and a cursor that resumes after the last", async () => {
    const first = await paginate({ limit: 6 }, fetchRows, keyOf);
    expect(first.items).toHaveLength(6);
    expect(first.nextCursor).toBe(encodeCursor("k02"));
    asked.length = 0;
    const last = await paginate({ limit: 6, cursor: first.nextCursor ?? "" }, fetchRows, keyOf);
    expect(asked).toEqual([{ after: "k02", take: 7 }]);
    expect(last).toEqual({ items: [{ key: "k01" }], nextCursor: null });
  });

  it("pages through the whole list with every limit, each row once", async () => {
    for (const limit of [1, 2, 3]) {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const next = await paginate({ limit, cursor }, fetchRows, keyOf);
        seen.push(...next.items.map(keyOf));
        cursor = next.nextCursor ?? undefined;
      } while (cursor !== undefined);
      expect(seen, String(limit)).toEqual(ROWS.map(keyOf));
    }
  });

  it("an empty list is one empty last page", async () => {
    expect(await paginate({ limit: 5 }, async () => [], keyOf)).toEqual({ items: [], nextCursor: null });
  });

  it("a cursor the list could not have given is a 400 invalid_request naming /cursor, before any read", async () => {
    for (const cursor of ["k3", "abc", "k03 ", "!!", encodeCursor("k99x")]) {
      asked.length = 0;
      const problem = await problemOf(() =>
        paginate({ limit: 2, cursor }, fetchRows, keyOf, (k) => /^k\d\d$/.test(k)),
      );
      expect(problem, cursor).toMatchObject({ code: "invalid_request" });
      expect(problem.extensions?.errors, cursor).toEqual([expect.objectContaining({ path: "/cursor" })]);
      expect(asked, cursor).toEqual([]);
    }
  });

  it("keys round-trip through their cursor, file paths and run ids alike", () => {
    for (const key of ["7", "lib/a/b-c_d.e.ts", "run_01k0000000000000000000", "ü"]) {
      expect(decodeCursor(encodeCursor(key))).toBe(key);
    }
  });
});
