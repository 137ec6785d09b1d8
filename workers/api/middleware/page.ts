import { validator } from "hono/validator";
import { z } from "zod";
import { ProblemException } from "../../../shared/http/problem";
import { fieldErrors } from "./json-body";

export const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().min(1).max(200).optional(),
});

/** `?limit=&cursor=` → `{ items, nextCursor }` pages (DESIGN §7). */
export const pageQuery = validator("query", (value) => {
  const parsed = PageQuery.safeParse(value);
  if (!parsed.success) {
    throw new ProblemException({
      code: "invalid_request",
      detail: "Invalid paging parameters.",
      extensions: { errors: fieldErrors(parsed.error.issues) },
    });
  }
  return parsed.data;
});
