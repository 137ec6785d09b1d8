// bench:world's writes phase: how long a deploy and a key revocation take as
// their callers see them, while every gateway colo holds a lease. Such a write
// returns only once every lease granted before it has ended, so it waits up
// to one lease; the target is lease + 2 RTT. Each write is timed right after
// a call on every colo took or renewed its lease, the longest wait there is.
import { KNOBS } from "../shared/knobs";
import { api } from "./gateway-setup";
import { percentile } from "./stats";

export interface WriteTimes {
  /** Deploying to the shadow channel and dropping it again: each a pointer move. */
  deploy: number[];
  /** `DELETE /keys/{id}` of a key made for it. */
  revoke: number[];
}

export interface WriteTarget {
  url: string;
  /** The workspace and its admin key; `tool` is the public name of a tool with a deployed adapter at version 1. */
  ws: { uid: string; key: string; tool: string };
  /** One call on each gateway colo, so each holds a fresh lease when the write starts. */
  holdLeases: () => Promise<void>;
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

export async function measureWrites(target: WriteTarget, rounds: number): Promise<WriteTimes> {
  const { url, ws } = target;
  const base = `/v1/workspaces/${ws.uid}`;
  const { data: listed } = await api(url, ws.key, "GET", `${base}/tools?limit=100`);
  const tool = (listed.items as { uid: string; name: string | null }[]).find((t) => t.name === ws.tool);
  if (tool === undefined) throw new Error(`no tool named ${ws.tool}`);
  const hook = `${base}/tools/${tool.uid}/hook`;
  const times: WriteTimes = { deploy: [], revoke: [] };
  for (let round = 0; round < rounds; round++) {
    await target.holdLeases();
    times.deploy.push(
      await timed(() => api(url, ws.key, "POST", `${hook}/deployments`, { version: 1, channel: "shadow" })),
    );
    await target.holdLeases();
    times.deploy.push(await timed(() => api(url, ws.key, "DELETE", `${hook}/shadow`)));
    const { data: made } = await api(url, ws.key, "POST", `${base}/keys`, {
      scopes: ["tools:call"],
      actor: "bench-revoked",
    });
    await target.holdLeases();
    times.revoke.push(await timed(() => api(url, ws.key, "DELETE", `${base}/keys/${String(made.id)}`)));
  }
  return times;
}

/** The bound a write is held to at `rtt`: one lease, its margin, and two round trips. */
export const writeBound = (rtt: number): number => KNOBS.leaseMs + KNOBS.leaseMarginMs + 2 * rtt;

const ms = (n: number): string => n.toFixed(0);

/** The report's rows: p50 and max of each write at each RTT, against the bound. */
export function writeRows(runs: readonly { rtt: number; writes: WriteTimes }[]): string[][] {
  return runs.flatMap(({ rtt, writes }) =>
    (["deploy", "revoke"] as const).map((kind) => {
      const samples = writes[kind].toSorted((a, b) => a - b);
      const max = samples.at(-1) ?? Number.NaN;
      const bound = writeBound(rtt);
      return [
        `${kind === "deploy" ? "deploy / drop shadow" : "revoke a key"} @${rtt}`,
        String(samples.length),
        ms(percentile(samples, 50)),
        ms(max),
        ms(bound),
        max <= bound ? "meets" : "misses",
      ];
    }),
  );
}
