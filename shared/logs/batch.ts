// Run records gathered per isolate and written to D1 together. A hot tool
// path produces a record or two per call; one D1 write per call would cost a
// statement (and, locally, a SQLite commit) for every call. Instead the first
// record opens a batch that is written `delayMs` later (or at once when it
// reaches `maxRows`), and every request whose records are in it holds the
// batch's write in its `waitUntil`, so the isolate stays alive until the rows
// are stored. Written by hand: nothing on npm batches D1 writes across
// requests inside one isolate.
import { insertRows, type RunRow } from "./insert";

export interface BatchOptions {
  /** How long a batch gathers rows before its write starts; 0 writes on a later turn of the event loop. */
  delayMs: number;
  /** A batch with this many rows is written at once. */
  maxRows: number;
  /** Rows per INSERT statement (D1's bound-parameter limit). */
  rowsPerInsert: number;
}

/** Makes a request's rows when its batch is written (a rejection is logged and drops only those rows). */
export type RowSource = () => readonly RunRow[] | Promise<readonly RunRow[]>;

interface Batch {
  sources: { count: number; source: RowSource }[];
  /** Rows the sources will make (each record is one row). */
  count: number;
  /** Starts the write now (size trigger); the timer would start it otherwise. */
  release: () => void;
  written: Promise<void>;
}

const logFailure = (rows: number, error: unknown): void =>
  console.error("hook-run log write failed", { records: rows, error: String(error) });

/**
 * Writes a batch; never rejects (failures are logged). One D1 batch is atomic,
 * so a row that cannot be stored (its workspace was deleted meanwhile) would
 * take every other workspace's rows with it: after a failure each workspace's
 * rows are written on their own.
 */
async function writeBatch(db: D1Database, rows: RunRow[], options: BatchOptions): Promise<void> {
  let failure: unknown;
  try {
    await insertRows(db, rows, options.rowsPerInsert);
    return;
  } catch (error) {
    failure = error;
  }
  const byWorkspace = Map.groupBy(rows, (row) => row.workspaceUid);
  if (byWorkspace.size === 1) return logFailure(rows.length, failure);
  for (const group of byWorkspace.values()) {
    await insertRows(db, group, options.rowsPerInsert).catch((error: unknown) =>
      logFailure(group.length, error),
    );
  }
}

export class RunBatcher {
  private readonly open = new Map<D1Database, Batch>();

  constructor(private readonly options: BatchOptions) {}

  /** Queues rows for `db`; the returned promise resolves once they are written or their failure is logged. */
  add(db: D1Database, rows: readonly RunRow[], delayMs: number = this.options.delayMs): Promise<void> {
    return this.addLater(db, rows.length, () => rows, delayMs);
  }

  /**
   * Queues `count` rows that `source` makes only when the batch is written,
   * so a response path pays for neither building them nor a timer of its own
   * (the batch's one timer serves every request in it).
   */
  addLater(
    db: D1Database,
    count: number,
    source: RowSource,
    delayMs: number = this.options.delayMs,
  ): Promise<void> {
    let batch = this.open.get(db);
    if (batch === undefined) {
      batch = this.start(db, delayMs);
      this.open.set(db, batch);
    }
    batch.sources.push({ count, source });
    batch.count += count;
    if (batch.count >= this.options.maxRows) batch.release();
    return batch.written;
  }

  private start(db: D1Database, delayMs: number): Batch {
    const { promise: released, resolve: release } = Promise.withResolvers<void>();
    // At least 1 ms: a timer that is due at once can run ahead of network events
    // already waiting, so the response that queued the rows might not be handed over yet.
    setTimeout(release, Math.max(1, delayMs));
    const batch: Batch = {
      sources: [],
      count: 0,
      release,
      written: released.then(async () => {
        // Rows added from here on open the next batch.
        if (this.open.get(db) === batch) this.open.delete(db);
        const made = await Promise.all(
          batch.sources.map(async ({ count, source }) => {
            try {
              return await source();
            } catch (error) {
              logFailure(count, error);
              return [];
            }
          }),
        );
        return writeBatch(db, made.flat(), this.options);
      }),
    };
    return batch;
  }
}
