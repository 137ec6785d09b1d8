// The dev server with the simulated distance to a workspace's home
// (docs/architecture.md, "Distance, simulated"): every await on the
// WorkspaceObject, D1 or R2 waits SIM_HOME_RTT_MS first, the gateway runs as
// separate colos, and `/__sim/*` reads each isolate's counters or empties a
// gateway colo's caches. Typed here because scripts/dev-server.mjs has no
// declarations and bench/dev-server.ts types the options the older benches use.
import type { DevServerOptions } from "./dev-server";

export interface SimServerOptions extends DevServerOptions {
  /** Milliseconds each home await waits (0 counts and waits nothing). */
  simHomeRttMs: number;
  /** Gateway colos, each its own isolate, picked with SIM_COLO_HEADER. */
  colos: number;
}

export interface SimServer {
  url: string;
  upstreamUrl: string;
  providerUrl: string;
  key: string;
  /** Resolves once every process it started has exited, so the next server may start. */
  stop: () => Promise<void>;
}

const devServerModule: string = "../scripts/dev-server.mjs";
const loaded = (await import(devServerModule)) as {
  startDevServer: (options: SimServerOptions) => Promise<SimServer>;
};

export const startSimServer = loaded.startDevServer;

// As shared/sim/distance.ts has them; that file types the Workers' bindings, which Node's typecheck lacks.

/** The dev-only header that picks the gateway colo. */
export const SIM_COLO_HEADER = "x-rayrun-colo";

/** What one isolate's `GET /__sim/stats` answers. */
export interface IsolateStats {
  worker: "api" | "gateway";
  colo: number;
  isolate: string;
  requests: number;
  workspaceRpcs: number;
  d1Queries: number;
  r2Ops: number;
  /** Trips begun during a request while no other was under way (shared/sim/distance.ts says how exact). */
  rounds: number;
}

/** The calls an isolate (or several) sent home. */
export type HomeCounts = Pick<IsolateStats, "workspaceRpcs" | "d1Queries" | "r2Ops" | "rounds">;

export const NO_COUNTS: HomeCounts = { workspaceRpcs: 0, d1Queries: 0, r2Ops: 0, rounds: 0 };

/** A gateway colo's counters, or the api Worker's when `colo` is null. */
export async function isolateStats(url: string, colo: number | null): Promise<IsolateStats> {
  const res = await fetch(`${url}/__sim/stats`, {
    headers: colo === null ? {} : { [SIM_COLO_HEADER]: String(colo) },
  });
  if (!res.ok) throw new Error(`GET /__sim/stats (colo ${String(colo)}): HTTP ${res.status}`);
  return (await res.json()) as IsolateStats;
}

/** Empties gateway colo `colo`'s caches: its next call is a cold isolate's first. */
export async function forgetColo(url: string, colo: number): Promise<void> {
  const res = await fetch(`${url}/__sim/forget`, {
    method: "POST",
    headers: { [SIM_COLO_HEADER]: String(colo) },
  });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`POST /__sim/forget (colo ${colo}): HTTP ${res.status}`);
}

/** A reading of the api Worker and of `colos`, to subtract from a later one. */
export interface Reading {
  isolates: IsolateStats[];
}

export async function readIsolates(url: string, colos: readonly number[]): Promise<Reading> {
  const isolates = await Promise.all([isolateStats(url, null), ...colos.map((n) => isolateStats(url, n))]);
  return { isolates };
}

/**
 * What the isolates of `after` sent home since `before`, summed. An isolate
 * replaced in between (wrangler reloads when a source file changes) counts
 * from its start, with a warning: what its predecessor sent is lost.
 */
export function sentHome(before: Reading, after: Reading): HomeCounts {
  const total = { ...NO_COUNTS };
  after.isolates.forEach((now, i) => {
    const then = before.isolates[i];
    const from = then?.isolate === now.isolate ? then : NO_COUNTS;
    if (from === NO_COUNTS)
      console.warn(
        `warning: the ${now.worker} isolate of colo ${now.colo} was replaced during a measurement; its counts start again from there`,
      );
    total.workspaceRpcs += now.workspaceRpcs - from.workspaceRpcs;
    total.d1Queries += now.d1Queries - from.d1Queries;
    total.r2Ops += now.r2Ops - from.r2Ops;
    total.rounds += now.rounds - from.rounds;
  });
  return total;
}

export const addCounts = (a: HomeCounts, b: HomeCounts): HomeCounts => ({
  workspaceRpcs: a.workspaceRpcs + b.workspaceRpcs,
  d1Queries: a.d1Queries + b.d1Queries,
  r2Ops: a.r2Ops + b.r2Ops,
  rounds: a.rounds + b.rounds,
});
