import { z } from "zod";
import { validQuery } from "./validate";

export const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().min(1).max(200).optional(),
});

/** `?limit=&cursor=` → `{ items, nextCursor }` pages. */
export const pageQuery = validQuery(PageQuery, "Invalid paging parameters.");
