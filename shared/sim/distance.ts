// Dev-only: the distance between a Worker and its workspace's home. In production a workspace's
// WorkspaceObject (and D1's primary, and R2) sit in one place while agents call the gateway from
// everywhere, so every await on them costs a round trip; on one machine they cost nothing. With
// SIM_HOME_RTT_MS set ("0" included), each Worker's env is wrapped once, where it enters the
// Worker (workers/*/index.ts), so that every such await first waits that long: no call site
// changes, and with the var unset the env passes through untouched. The same wrapper counts
// the calls per isolate, for `GET /__sim/stats` (docs/architecture.md, "Distance, simulated").
// This folder imports nothing of the project's: it sits below every layer of shared/.

/** Waits `ms` milliseconds; tests inject their own. */
export type Sleep = (ms: number) => Promise<void>;

/** The dev-only vars, never declared in wrangler.toml (deploy refuses a config that sets them). */
export interface SimulatedDistanceVars {
  /** Milliseconds each WorkspaceObject RPC, D1 query and R2 operation waits first; unset or empty: off. */
  SIM_HOME_RTT_MS?: string | number;
  /** Which gateway colo this Worker is (`npm start` with SIM_COLOS > 1 sets it on colos 2…n). */
  SIM_COLO?: string | number;
}

/** The bindings that reach the workspace's home. */
export interface HomeBindings {
  DB: D1Database;
  CODE: R2Bucket;
  WORKSPACE: object;
}

/** The dev-only header that picks the gateway colo a request reaches through the api Worker. */
export const SIM_COLO_HEADER = "x-rayrun-colo";

/** What this isolate has sent home since it started (counted only while the var is set). */
export interface SimulatedDistanceCounts {
  workspaceRpcs: number;
  d1Queries: number;
  r2Ops: number;
  /**
   * Rounds home: trips begun during a request while no other trip was under
   * way. Trips that overlap cost one round between them, so for one request
   * at a time this is what its latency pays, RTT by RTT. Not exact: a trip
   * that starts while an unrelated one is out is not counted, and background
   * work (waitUntil) that starts before the response is handed back is.
   */
  rounds: number;
}

/** The JSON `GET /__sim/stats` answers. */
export interface SimStats extends SimulatedDistanceCounts {
  worker: "api" | "gateway";
  colo: number;
  isolate: string;
  requests: number;
}

const counts: SimulatedDistanceCounts = { workspaceRpcs: 0, d1Queries: 0, r2Ops: 0, rounds: 0 };
let requests = 0;
/** Requests being answered (dev-only routes excluded), and trips home under way. */
let answering = 0;
let tripsOut = 0;
// Workers refuse random values in global scope, so the id is made on the first request that asks.
let isolate: string | undefined;

/**
 * Counts one request this isolate serves (each Worker's fetch handler, before
 * anything else); call the returned function once its response is handed back.
 */
export function countRequest(request: Request, env: object): () => void {
  requests += 1;
  // The counters' own routes do not make a trip of the request they read count as one.
  if (homeRttMs(env) === null || new URL(request.url).pathname.startsWith("/__sim/")) return NOTHING;
  answering += 1;
  return () => {
    answering -= 1;
  };
}

const NOTHING = (): void => undefined;

/** Runs one trip home: counted, waited for, then sent. */
async function trip(away: Away, send: () => unknown): Promise<unknown> {
  counts[away.counter] += 1;
  if (tripsOut === 0 && answering > 0) counts.rounds += 1;
  tripsOut += 1;
  try {
    await away.wait();
    return await send();
  } finally {
    tripsOut -= 1;
  }
}

/** A copy of this isolate's counters. */
export function simulatedDistanceCounts(): SimulatedDistanceCounts {
  return { ...counts };
}

/** A dev-only var, read by name: the generated Env does not declare them. */
function simVar(env: object, name: keyof SimulatedDistanceVars): unknown {
  return Reflect.get(env, name);
}

/** The milliseconds the var asks for, or null when it is unset or empty. */
export function homeRttMs(env: object): number | null {
  const value = simVar(env, "SIM_HOME_RTT_MS");
  if (value === undefined || value === null || (typeof value === "string" && value.trim() === ""))
    return null;
  const ms = Number(value);
  if (!Number.isFinite(ms) || ms < 0)
    throw new RangeError(`SIM_HOME_RTT_MS is ${JSON.stringify(value)}, not a number of milliseconds ≥ 0`);
  return ms;
}

/** This isolate's stats, or null when the var is unset (the route then answers 404 as any unknown path). */
export function simStats(worker: SimStats["worker"], env: object): SimStats | null {
  if (homeRttMs(env) === null) return null;
  const colo = Number(simVar(env, "SIM_COLO") ?? 1);
  isolate ??= crypto.randomUUID();
  return { worker, colo: Number.isInteger(colo) ? colo : 1, isolate, requests, ...counts };
}

const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Wrapped envs by the sleep they use (the real one in Workers), then by the env they wrap. */
const wrapped = new WeakMap<Sleep, WeakMap<object, object>>();

/**
 * `env` when SIM_HOME_RTT_MS is unset or empty; else an env whose DB, CODE and WORKSPACE wait
 * the var's milliseconds before each call that reaches the home, built once per env object.
 */
export function withSimulatedDistance<E extends HomeBindings & SimulatedDistanceVars>(
  env: E,
  sleep: Sleep = realSleep,
): E {
  const ms = homeRttMs(env);
  if (ms === null) return env;
  let bySleep = wrapped.get(sleep);
  if (bySleep === undefined) {
    bySleep = new WeakMap();
    wrapped.set(sleep, bySleep);
  }
  const hit = bySleep.get(env);
  if (hit !== undefined) return hit as E;
  const away = (counter: keyof SimulatedDistanceCounts): Away => ({ wait: () => sleep(ms), counter });
  const far: E = {
    ...env,
    DB: farDatabase(env.DB, away("d1Queries")),
    CODE: farBucket(env.CODE, away("r2Ops")),
    WORKSPACE: farNamespace(env.WORKSPACE, away("workspaceRpcs")),
  };
  bySleep.set(env, far);
  return far;
}

/** How a wrapped binding waits, and which counter its calls go to. */
interface Away {
  wait: () => Promise<void>;
  counter: keyof SimulatedDistanceCounts;
}

type Method = (...args: unknown[]) => unknown;

/** Calls `real[name]` with `real` as `this`; a DO stub's RPC properties are callable too. */
function call(real: object, name: string | symbol, args: unknown[]): unknown {
  const method: unknown = Reflect.get(real, name);
  if (typeof method !== "function") throw new TypeError(`${String(name)} is not a function`);
  return Reflect.apply(method, real, args);
}

/** `real[name]`, counted and called after the wait. */
const later =
  (real: object, name: string, away: Away): Method =>
  (...args) =>
    trip(away, () => call(real, name, args));

/**
 * An object that answers as `real` does, except for the names `own` returns a function for.
 * The proxy's target is an empty object, so the real binding's own properties never constrain
 * what it answers; other methods are bound to `real`, as native bindings need.
 */
function lookalike<T extends object>(real: T, own: (name: string) => Method | undefined): T {
  return new Proxy(Object.create(null) as T, {
    get(_, name) {
      const replaced = typeof name === "string" ? own(name) : undefined;
      if (replaced !== undefined) return replaced;
      const value: unknown = Reflect.get(real, name);
      return typeof value === "function" ? (...args: unknown[]) => call(real, name, args) : value;
    },
    has: (_, name) => Reflect.has(real, name),
  });
}

// --- D1 ---------------------------------------------------------------------------------------

/** The real statement behind each wrapped one: `batch` must hand D1 its own statements. */
const realStatements = new WeakMap<object, D1PreparedStatement>();

const STATEMENT_QUERIES = new Set(["first", "all", "run", "raw"]);

function farStatement(real: D1PreparedStatement, away: Away): D1PreparedStatement {
  const far = lookalike(real, (name) => {
    if (name === "bind") return (...values) => farStatement(real.bind(...values), away);
    return STATEMENT_QUERIES.has(name) ? later(real, name, away) : undefined;
  });
  realStatements.set(far, real);
  return far;
}

/** `batch` of a database or a session: one round trip for all its statements. */
const farBatch =
  (real: D1Database | D1DatabaseSession, away: Away): Method =>
  async (statements) => {
    const own = (statements as D1PreparedStatement[]).map((s) => realStatements.get(s) ?? s);
    return trip(away, () => real.batch(own));
  };

function farSession(real: D1DatabaseSession, away: Away): D1DatabaseSession {
  return lookalike(real, (name) => {
    if (name === "prepare") return (query) => farStatement(real.prepare(query as string), away);
    return name === "batch" ? farBatch(real, away) : undefined;
  });
}

function farDatabase(real: D1Database, away: Away): D1Database {
  return lookalike(real, (name) => {
    switch (name) {
      case "prepare":
        return (query) => farStatement(real.prepare(query as string), away);
      case "batch":
        return farBatch(real, away);
      case "exec":
      case "dump":
        return later(real, name, away);
      case "withSession":
        return (...args) => farSession(call(real, name, args) as D1DatabaseSession, away);
      default:
        return undefined;
    }
  });
}

// --- R2 ---------------------------------------------------------------------------------------

const BUCKET_OPERATIONS = new Set(["get", "put", "head", "list", "delete"]);
const UPLOAD_OPERATIONS = new Set(["uploadPart", "complete", "abort"]);

function farUpload(real: R2MultipartUpload, away: Away): R2MultipartUpload {
  return lookalike(real, (name) => (UPLOAD_OPERATIONS.has(name) ? later(real, name, away) : undefined));
}

function farBucket(real: R2Bucket, away: Away): R2Bucket {
  return lookalike(real, (name) => {
    if (BUCKET_OPERATIONS.has(name)) return later(real, name, away);
    if (name === "createMultipartUpload") {
      const create = later(real, name, away);
      return async (...args) => farUpload((await create(...args)) as R2MultipartUpload, away);
    }
    if (name === "resumeMultipartUpload")
      return (...args) => farUpload(call(real, name, args) as R2MultipartUpload, away);
    return undefined;
  });
}

// --- WorkspaceObject --------------------------------------------------------------------------

/**
 * A stub's properties that are not RPC methods. `then` above all: an async function that
 * returns a stub looks it up, and the real stub answers undefined so that it is not awaited.
 */
const STUB_PROPERTIES = new Set(["then", "id", "name", "constructor", "toString", "toJSON"]);

function farStub<T extends object>(real: T, away: Away): T {
  return lookalike(real, (name) => (STUB_PROPERTIES.has(name) ? undefined : later(real, name, away)));
}

function farNamespace<T extends object>(real: T, away: Away): T {
  return lookalike(real, (name) => {
    if (name === "get" || name === "getByName")
      return (...args) => farStub(call(real, name, args) as object, away);
    if (name === "jurisdiction") return (...args) => farNamespace(call(real, name, args) as object, away);
    return undefined;
  });
}
