// Tool adapters (seed 000) on top of the generic invocation core, with a pool
// of pre-warmed single-use sessions per compiled code (pool.ts).
import type { Json } from "../json";
import { LIMITS } from "../limits";
import { err, ok, type Result } from "../result";
import type { Engine, EngineProvider } from "./engine";
import { fail } from "./failure";
import { FUEL } from "./fuel";
import { moduleFailureReport, prepareModule, runPrepared, type PreparedSession } from "./invocation";
import { validateAfter, validateBefore } from "./outcome";
import { WarmPool, type PoolOptions, type PoolStats } from "./pool";
import { adapterExtension } from "./prelude";
import type { Session } from "./session";
import type {
  AdapterDefinition,
  AdapterStage,
  AfterOutcome,
  BeforeOutcome,
  InvocationReport,
  SandboxError,
  StageRequest,
} from "./types";

const EXTENSIONS = [adapterExtension];
/** A stage input of the usual shape, for rehearsals (Session.rehearse). */
const REHEARSAL: { builder: string; sample: Json } = {
  builder: "adapterStage",
  sample: {
    context: {
      calledAt: "1970-01-01T00:00:00.000Z",
      requestId: "rehearsal",
      workspaceUid: "ws",
      connectionId: "svc",
      toolUid: "tool",
      toolName: "tool",
      config: { key: "value" },
    },
    arguments: { text: "text", number: 1, flag: true, list: [{ key: "value" }] },
    result: { content: [{ type: "text", text: "text" }] },
  },
};
/** Largest publicContract read at inspection, in bytes of JSON. */
export const PUBLIC_CONTRACT_BYTES = LIMITS.outputBytes;

interface InspectRecord {
  apiVersion: string;
  publicContract: Json;
  hasContract: boolean;
  stages: AdapterStage[];
}

function readAdapter(session: Session, withContract: boolean): InspectRecord {
  if (withContract) session.meter.extend(PUBLIC_CONTRACT_BYTES * FUEL.outputAllowancePerByte);
  const text = session.callApiText("inspectAdapter", [withContract ? PUBLIC_CONTRACT_BYTES : -1]);
  if (text.startsWith("E")) throw fail("hook_invalid_module", text.slice(1));
  return JSON.parse(text.slice(1)) as InspectRecord;
}

export interface AdapterSandboxOptions {
  /** Warm pool bounds, or false for fresh sessions only. */
  pool?: Partial<PoolOptions> | false;
}

export function createAdapterSandbox(provider: EngineProvider, options: AdapterSandboxOptions = {}) {
  /**
   * Module phase of a stage run: the top level plus the adapter's shape (no
   * contract), then a rehearsal of the stage path (uncharged). Fresh sessions
   * rehearse too, so a stage uses the same fuel in either.
   */
  const prepareStageModule = (engine: Engine, code: string) =>
    prepareModule(provider, engine, { code, extensions: EXTENSIONS, rehearsal: REHEARSAL }, (session) =>
      readAdapter(session, false),
    );
  const pool =
    options.pool === false
      ? undefined
      : new WarmPool<InspectRecord>(provider, prepareStageModule, options.pool);

  async function inspectAdapter(code: string): Promise<Result<AdapterDefinition, SandboxError>> {
    // The contract is read right after the top level, in the module phase (same clock and seed as calls see there).
    const engine = await provider.get();
    const module = prepareModule(provider, engine, { code, extensions: EXTENSIONS }, (session) =>
      readAdapter(session, true),
    );
    if (!module.ok) return err(module.error);
    const report = await runPrepared(
      provider,
      module.prepared,
      { nowMs: 0, seed: "inspect" },
      (_session, record) => {
        const definition: AdapterDefinition = { apiVersion: record.apiVersion, stages: record.stages };
        if (record.hasContract) definition.publicContract = record.publicContract;
        return definition;
      },
    );
    return report.outcome.ok ? ok(report.outcome.value) : err(report.outcome.error);
  }

  async function runStage(
    session: Session,
    record: InspectRecord,
    req: StageRequest,
  ): Promise<BeforeOutcome | AfterOutcome> {
    if (!record.stages.includes(req.stage))
      throw fail("hook_invalid_module", `the adapter has no ${req.stage} stage`);
    const input: { [key: string]: Json } = { context: { ...req.context } };
    if (req.arguments !== undefined) input.arguments = req.arguments;
    if (req.stage === "after" && req.result !== undefined) input.result = req.result;
    const returned = await session.invoke(
      ["default", req.stage],
      "adapterStage",
      input,
      `${req.stage}'s return value`,
    );
    const checked = req.stage === "before" ? validateBefore(returned) : validateAfter(returned);
    if (!checked.ok) throw fail("hook_invalid_return", checked.error);
    return checked.value;
  }

  /**
   * Runs one stage: in a pre-warmed session of this code when one is ready
   * (see warmAdapter), else in a fresh one. Both give the same outcome, logs
   * and fuel; only the latency differs.
   */
  async function runAdapterStage(req: StageRequest): Promise<InvocationReport<BeforeOutcome | AfterOutcome>> {
    const started = performance.now();
    const calledAtMs = Date.parse(req.context.calledAt);
    const call = { nowMs: Number.isFinite(calledAtMs) ? calledAtMs : 0, seed: req.context.requestId };
    const engine = await provider.get();
    let prepared: PreparedSession<InspectRecord>;
    const taken = pool ? pool.take(req.code, engine) : ({ kind: "none" } as const);
    if (taken.kind === "failed") return moduleFailureReport(taken.failure, started);
    if (taken.kind === "warm") {
      prepared = taken.prepared;
    } else {
      const module = prepareStageModule(engine, req.code);
      if (!module.ok) {
        if (pool && module.deterministic)
          pool.remember(req.code, { error: module.error, fuelUsed: module.fuelUsed });
        return moduleFailureReport(module, started);
      }
      prepared = module.prepared;
    }
    const report = await runPrepared(
      provider,
      prepared,
      call,
      (session, record) => runStage(session, record, req),
      pool?.release,
    );
    return { ...report, durationMs: performance.now() - started };
  }

  /**
   * Refills the warm pool for `code` off the critical path: pass it to
   * `ctx.waitUntil` after a response that ran (or will run) this code. Never
   * rejects; does nothing once the code is known to fail at its top level.
   */
  async function warmAdapter(code: string): Promise<void> {
    if (pool) await pool.refill(code);
  }

  /** Counters and sizes of the warm pool (tests, benches, diagnostics). */
  function poolStats(): PoolStats | null {
    return pool ? pool.stats() : null;
  }

  /** Drops every warm session (remembered failures stay). */
  function clearPool(): void {
    pool?.clear();
  }

  return { inspectAdapter, runAdapterStage, warmAdapter, poolStats, clearPool };
}
