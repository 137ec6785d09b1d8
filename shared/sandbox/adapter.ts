// Tool adapters (seed 000) on top of the generic invocation core.
import type { Json } from "../json";
import { LIMITS } from "../limits";
import { err, ok, type Result } from "../result";
import type { EngineProvider } from "./engine";
import { fail } from "./failure";
import { FUEL } from "./fuel";
import { runInvocation } from "./invocation";
import { validateAfter, validateBefore } from "./outcome";
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

export function createAdapterSandbox(provider: EngineProvider) {
  async function inspectAdapter(code: string): Promise<Result<AdapterDefinition, SandboxError>> {
    const report = await runInvocation(provider, { code, extensions: EXTENSIONS, nowMs: 0, seed: "inspect" }, (session) => {
      const record = readAdapter(session, true);
      const definition: AdapterDefinition = { apiVersion: record.apiVersion, stages: record.stages };
      if (record.hasContract) definition.publicContract = record.publicContract;
      return definition;
    });
    return report.outcome.ok ? ok(report.outcome.value) : err(report.outcome.error);
  }

  async function runAdapterStage(req: StageRequest): Promise<InvocationReport<BeforeOutcome | AfterOutcome>> {
    const calledAtMs = Date.parse(req.context.calledAt);
    return runInvocation<BeforeOutcome | AfterOutcome>(
      provider,
      {
        code: req.code,
        extensions: EXTENSIONS,
        nowMs: Number.isFinite(calledAtMs) ? calledAtMs : 0,
        seed: req.context.requestId,
      },
      async (session) => {
        const record = readAdapter(session, false);
        if (!record.stages.includes(req.stage)) throw fail("hook_invalid_module", `the adapter has no ${req.stage} stage`);
        const input: { [key: string]: Json } = { context: { ...req.context } };
        if (req.arguments !== undefined) input.arguments = req.arguments;
        if (req.stage === "after" && req.result !== undefined) input.result = req.result;
        const returned = await session.invoke(["default", req.stage], "adapterStage", input, `${req.stage}'s return value`);
        const checked = req.stage === "before" ? validateBefore(returned) : validateAfter(returned);
        if (!checked.ok) throw fail("hook_invalid_return", checked.error);
        return checked.value;
      },
    );
  }

  return { inspectAdapter, runAdapterStage };
}
