import { z } from "zod";
import { validQuery } from "./validate";

export const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().min(1).max(200).optional(),
});

/** `?limit=&cursor=` → `{ items, nextCursor }` pages. */
export const pageQuery = validQuery(PageQuery, "Invalid paging parameters.");

/** What a paged list answers; the items are the list's own views. */
export const Page = z.object({
  items: z.array(z.record(z.string(), z.unknown())),
  nextCursor: z.string().nullable().describe("Pass as ?cursor= for the next page; null on the last"),
});

export const PAGE = { description: "A page `{ items, nextCursor }` (`?limit=&cursor=`)", schema: Page };

/** A page of `item`s, documented with the schema of its items. */
export const pageOf = <T extends z.ZodType>(item: T, description = PAGE.description) => ({
  description,
  schema: z.object({ items: z.array(item), nextCursor: Page.shape.nextCursor }),
});
