// What the log writer spends making the INSERT statements of hook-run rows
// (Node, tsx), against drizzle's query builder doing the same:
//
//   npx tsx bench/logs.ts [--rows N] [--rounds N]
//
// Both make the statements of one batch of N rows (8 by default: a tool call
// with four plugins, or four hooked calls) with their bound values, against a
// D1 stand-in that only keeps what it is given, so what is timed is the
// Worker's own work and never a database. Interleaved round by round.
import { drizzle } from "drizzle-orm/d1";
import { hookRuns } from "../shared/db/schema";
import { insertRows, ROWS_PER_INSERT, type RunRow, type StatementSink } from "../shared/logs/insert";
import { option } from "./options";
import { ms, shuffled, summarize } from "./stats";

const rowsPerBatch = Number(option("rows", "8"));
const rounds = Number(option("rounds", "3000"));

/** A plugin's run row as the writer makes it, with captured details. */
const row = (i: number): RunRow => ({
  id: `log_01m8vcabra${String(i).padStart(4, "0")}abcdefghij`,
  workspaceUid: "ws_01m8vcabra00078d364apz",
  kind: "plugin",
  target: `file:plugins/p${i % 4}.ts`,
  toolUid: "tl_01m8vcabra00078d364apz",
  toolName: "echo",
  stage: "tool.execute.before",
  channel: "active",
  outcome: "continue",
  code: null,
  revisionId: "rv_01m8vcabra00078d364apz",
  requestId: "ae531e87-995d-42e4-9765-ff8922f20d3f",
  durationMs: 1,
  fuelUsed: 312,
  shadowDiffered: null,
  loop: null,
  plugin: `p${i % 4}`,
  mode: "direct",
  turnError: null,
  attempt: null,
  at: new Date().toISOString(),
  details: { logs: [], arguments: { toolID: "echo", args: { text: `hello ${i}` } } },
  detailsCapturedAt: new Date().toISOString(),
});

const rows = Array.from({ length: rowsPerBatch }, (_, i) => row(i));

/** Keeps the statements it is given; `batch` resolves at once. */
const kept: unknown[] = [];
const standIn: StatementSink<unknown> = {
  prepare: (text: string) => ({ bind: (...values: unknown[]) => ({ text, values }) }),
  batch: (statements: unknown[]) => {
    kept.push(statements);
    return Promise.resolve([]);
  },
};

// Only `toSQL` is called: drizzle never reaches the database object.
const orm = drizzle({} as Parameters<typeof drizzle>[0]);
const viaDrizzle = () => {
  const statements = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    statements.push(
      orm
        .insert(hookRuns)
        .values(rows.slice(i, i + ROWS_PER_INSERT))
        .toSQL(),
    );
  }
  kept.push(statements);
  return Promise.resolve();
};
const prepared = () => insertRows(standIn, rows);

const cases = { "drizzle's builder": viaDrizzle, "prepared text, bound values": prepared };
const samples = new Map(Object.keys(cases).map((name) => [name, [] as number[]]));
for (let round = 0; round < rounds + 200; round++) {
  for (const name of shuffled(Object.keys(cases) as (keyof typeof cases)[])) {
    const started = performance.now();
    await cases[name]();
    const elapsed = performance.now() - started;
    if (round >= 200) samples.get(name)?.push(elapsed * 1000);
    kept.length = 0;
  }
}
console.log(
  `the INSERT statements of ${rowsPerBatch} rows, ${rounds} rounds (+200 warm-up), interleaved (µs)`,
);
console.log(`${"".padEnd(30)} ${"p50".padStart(8)} ${"p90".padStart(8)} ${"p99".padStart(8)}`);
for (const [name, values] of samples) {
  const s = summarize(values);
  console.log(
    `${name.padEnd(30)} ${ms(s.p50).padStart(8)} ${ms(s.p90).padStart(8)} ${ms(s.p99).padStart(8)}`,
  );
}
const [builder, text] = [...samples.values()].map((values) => summarize(values).p50);
console.log(`ratio of p50s (builder / prepared): ${((builder ?? 0) / (text ?? 1)).toFixed(1)}×`);
