// One answer for every request a schema refuses: 400 invalid_request with
// each failing field as a JSON-pointer path.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ProblemException } from "../../../../shared/http/problem";
import { fieldErrors, parsedOrProblem } from "../../../../workers/api/middleware/validate";

const Body = z
  .object({ items: z.array(z.object({ id: z.string() })), meta: z.object({ n: z.number() }) })
  .strict();

/** What `fn` threw (fails the test when it returned). */
function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("fieldErrors", () => {
  it("paths are JSON pointers through objects and array indices, each with a message", () => {
    const parsed = Body.safeParse({ items: [{ id: "a" }, { id: 2 }], meta: { n: "x" } });
    expect(parsed.success).toBe(false);
    const errors = fieldErrors(parsed.error?.issues ?? []);
    expect(errors.map((e) => e.path).toSorted()).toEqual(["/items/1/id", "/meta/n"]);
    for (const error of errors) expect(error.message).not.toBe("");
  });
});

describe("parsedOrProblem", () => {
  it("returns the parsed (coerced, defaulted) value", () => {
    const schema = z.object({ n: z.coerce.number(), flag: z.boolean().default(false) });
    expect(parsedOrProblem(schema.safeParse({ n: "4" }), "unused")).toEqual({ n: 4, flag: false });
  });

  it("throws a 400 invalid_request with the route's detail and every failing field", () => {
    const thrown = thrownBy(() => parsedOrProblem(Body.safeParse({ items: [{}], meta: {} }), "Bad body."));
    expect(thrown).toBeInstanceOf(ProblemException);
    expect(thrown).toMatchObject({
      problem: {
        code: "invalid_request",
        detail: "Bad body.",
        extensions: {
          errors: expect.arrayContaining([
            { path: "/items/0/id", message: expect.any(String) },
            { path: "/meta/n", message: expect.any(String) },
          ]),
        },
      },
    });
  });
});
