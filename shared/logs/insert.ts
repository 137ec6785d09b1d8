// The INSERT of hook-run rows. Every batch of the log writer goes through it,
// several times a second on a busy isolate, so its statements are not built
// by drizzle's query builder (about 24 µs a row in `npm run bench:logs`) but
// bound to a statement text made once per row count. The columns, their names
// and their mapping to D1 values (JSON text, booleans as 0/1, defaults) are
// still read from the drizzle table, so the schema is written once.
import { getTableColumns, getTableName } from "drizzle-orm";
import { hookRuns } from "../db/schema";

export type RunRow = typeof hookRuns.$inferInsert;

const COLUMNS = Object.entries(getTableColumns(hookRuns));
const COLUMN_LIST = COLUMNS.map(([, column]) => `"${column.name}"`).join(", ");
const ROW_PLACEHOLDERS = `(${COLUMNS.map(() => "?").join(", ")})`;
const INSERT_INTO = `insert into "${getTableName(hookRuns)}" (${COLUMN_LIST}) values `;

/** D1 binds at most 100 parameters per statement; every column of a row is one. */
const D1_MAX_BOUND_PARAMETERS = 100;
export const ROWS_PER_INSERT = Math.floor(D1_MAX_BOUND_PARAMETERS / COLUMNS.length);

const texts = new Map<number, string>();

/** The statement text for `rows` rows (at most ROWS_PER_INSERT, so at most that many texts exist). */
function statementText(rows: number): string {
  let text = texts.get(rows);
  if (text === undefined) {
    text = INSERT_INTO + Array.from({ length: rows }, () => ROW_PLACEHOLDERS).join(", ");
    texts.set(rows, text);
  }
  return text;
}

/**
 * A row's values in column order, as drizzle binds them: an absent (undefined)
 * value takes the column's default, else null; an explicit null stays null.
 */
function bindValues(row: RunRow, into: unknown[]): void {
  const fields = row as Record<string, unknown>;
  for (const [key, column] of COLUMNS) {
    const given = fields[key];
    const value = given === undefined && column.hasDefault ? column.default : given;
    into.push(value === null || value === undefined ? null : column.mapToDriverValue(value));
  }
}

/** What the insert needs of D1 (typed apart so `bench:logs` can time it against a stand-in in Node). */
export interface StatementSink<S> {
  prepare(query: string): { bind(...values: unknown[]): S };
  batch(statements: S[]): Promise<unknown>;
}

/** Inserts rows in one atomic D1 batch, at most `rowsPerInsert` rows per statement. */
export async function insertRows<S>(
  db: StatementSink<S>,
  rows: readonly RunRow[],
  rowsPerInsert: number = ROWS_PER_INSERT,
): Promise<void> {
  const size = Math.max(1, Math.min(rowsPerInsert, ROWS_PER_INSERT));
  const statements: S[] = [];
  for (let i = 0; i < rows.length; i += size) {
    const chunk = rows.slice(i, i + size);
    const values: unknown[] = [];
    for (const row of chunk) bindValues(row, values);
    statements.push(db.prepare(statementText(chunk.length)).bind(...values));
  }
  if (statements.length === 0) return;
  await db.batch(statements);
}
