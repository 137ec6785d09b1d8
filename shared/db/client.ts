import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema";

// One drizzle instance per binding: building one walks the whole schema, and
// every query asked for a new one (12 % of a busy gateway's allocations in a soak).
const instances = new WeakMap<D1Database, ReturnType<typeof build>>();
const build = (db: D1Database) => drizzle(db, { schema });

export function database(db: D1Database): ReturnType<typeof build> {
  let instance = instances.get(db);
  if (instance === undefined) {
    instance = build(db);
    instances.set(db, instance);
  }
  return instance;
}
export type Database = ReturnType<typeof database>;
