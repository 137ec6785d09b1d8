import { z } from "zod";
import { ProblemException } from "../../../shared/http/problem";
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

/** What every paged list answers. */
export interface PageOf<T> {
  items: T[];
  nextCursor: string | null;
}

// A cursor is the key of the last row of the page before, which clients pass
// back without reading it (the console's run lookup still builds run-id
// cursors itself). Encoding and decoding happen here and nowhere else, so the
// form can change in one place.
/** The cursor that resumes a list after the row whose key is `key`. */
export const encodeCursor = (key: string): string => key;

/** The key a cursor carries; 400 `invalid_request` (naming /cursor) when the list could not have given it. */
export function decodeCursor(cursor: string, validKey: (key: string) => boolean = () => true): string {
  if (validKey(cursor)) return cursor;
  throw new ProblemException({
    code: "invalid_request",
    detail: "The cursor is not one this API returned; list again without it.",
    extensions: { errors: [{ path: "/cursor", message: "Not a cursor this API returned" }] },
  });
}

/**
 * One page of a list ordered by a unique key. `fetchRows(after, take)` reads up to
 * `take` rows following the row keyed `after` (from the start when undefined);
 * asking for one row more than `limit` tells whether another page follows
 * without a second read. `validKey` refuses cursors whose key the list could not
 * have given (a version cursor must carry a version number).
 */
export async function paginate<Row>(
  page: { limit: number; cursor?: string | undefined },
  fetchRows: (after: string | undefined, take: number) => Promise<readonly Row[]>,
  keyOf: (row: Row) => string,
  validKey?: (key: string) => boolean,
): Promise<PageOf<Row>> {
  const after = page.cursor === undefined ? undefined : decodeCursor(page.cursor, validKey);
  const rows = await fetchRows(after, page.limit + 1);
  const items = rows.slice(0, page.limit);
  const last = items.at(-1);
  return {
    items,
    nextCursor: rows.length > page.limit && last !== undefined ? encodeCursor(keyOf(last)) : null,
  };
}

/** The page with its rows shown as the list answers them. */
export const mapPage = <Row, T>(page: PageOf<Row>, view: (row: Row) => T): PageOf<T> => ({
  items: page.items.map(view),
  nextCursor: page.nextCursor,
});
