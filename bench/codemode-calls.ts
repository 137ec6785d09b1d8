// Code Mode's bench calls: an `execute` whose code awaits the hooked search
// tool (gateway-setup.ts's ~2 KB adapter) up to three times, and what it must
// answer. bench:codemode and bench:world send the same executions.
import { rpcMessage } from "./dev-server";
import type { Reply } from "./http-client";

/** The demo upstream finds two items for any query; the adapter's `after` adds their `total`. */
export const FOUND = 2;

/** The arguments of the three calls, in order: the same in both modes. */
export const QUERIES = [
  { query: "The Workers release", limit: 5 },
  { query: "pages release" },
  { query: "d1 release notes", product: "d1" },
];

/** An execute's code: `calls` awaited calls of `tool`, returning the number of items each found. */
export function executeCode(tool: string, calls: number): string {
  if (calls === 0) return "return [];";
  const lines = QUERIES.slice(0, calls).map(
    (args, i) => `const r${i} = await tools[${JSON.stringify(tool)}](${JSON.stringify(args)});`,
  );
  return [
    ...lines,
    `return [${QUERIES.slice(0, calls)
      .map((_, i) => `r${i}.total`)
      .join(", ")}];`,
  ].join("\n");
}

/** What an execute of `calls` calls answers: each call's total, and no logs. */
export const totals = (calls: number) => ({ result: Array.from({ length: calls }, () => FOUND), logs: [] });

export function expectResult(label: string, reply: Reply, expected: unknown): void {
  const message = rpcMessage(reply.body);
  if (reply.status !== 200 || message.error !== undefined || message.result?.isError)
    throw new Error(`${label}: HTTP ${reply.status}: ${reply.body.slice(0, 300)}`);
  const got = JSON.stringify(message.result?.structuredContent);
  if (got !== JSON.stringify(expected)) throw new Error(`${label}: got ${got}`);
}
