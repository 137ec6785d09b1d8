// Tool adapters on top of the generic invocation core: one memory image per
// compiled code (its top level run, its stages read and rehearsed), restored
// before every stage call.
import type { Json } from "../json";
import { LIMITS } from "../limits";
import { err, ok, type Result } from "../result";
import type { Call } from "./call/call";
import { FUEL } from "./call/fuel";
import { validateAfter, validateBefore } from "./call/outcome";
import { fail } from "./engine/failure";
import type { EngineProvider } from "./image/provider";
import { inspectInvocation, runInvocation, type ModuleSpec } from "./invocation";
import { ADAPTER_JS, type PreludeExtension } from "./prelude";
import type {
  AdapterDefinition,
  AdapterStage,
  AfterOutcome,
  BeforeOutcome,
  InvocationReport,
  SandboxError,
  StageRequest,
} from "./types";

// defineToolAdapter, the stage context and its builder, the rehearsal's stand-in and
// api.inspectAdapter: prelude/adapter.js.
export const adapterExtension: PreludeExtension = { name: "adapter", source: ADAPTER_JS };

const EXTENSIONS = [adapterExtension];
/** A stage input of the usual shape, for rehearsals (Call.rehearse). */
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

function readAdapter(call: Call, withContract: boolean): InspectRecord {
  if (withContract) call.meter.extend(PUBLIC_CONTRACT_BYTES * FUEL.outputAllowancePerByte);
  const text = call.callApiText("inspectAdapter", [withContract ? PUBLIC_CONTRACT_BYTES : -1]);
  if (text.startsWith("E")) throw fail("hook_invalid_module", text.slice(1));
  return JSON.parse(text.slice(1)) as InspectRecord;
}

/** The image every stage call of `code` starts from: the top level, the adapter's shape, a rehearsal. */
const stageImage = (code: string): ModuleSpec<InspectRecord> => ({
  kind: "adapter",
  code,
  extensions: EXTENSIONS,
  prepare: (call) => readAdapter(call, false),
  rehearsal: REHEARSAL,
});

async function runStage(
  call: Call,
  record: InspectRecord,
  req: StageRequest,
): Promise<BeforeOutcome | AfterOutcome> {
  if (!record.stages.includes(req.stage))
    throw fail("hook_invalid_module", `the adapter has no ${req.stage} stage`);
  const input: { [key: string]: Json } = { context: { ...req.context } };
  if (req.arguments !== undefined) input.arguments = req.arguments;
  if (req.stage === "after" && req.result !== undefined) input.result = req.result;
  const returned = await call.invoke(
    ["default", req.stage],
    "adapterStage",
    input,
    `${req.stage}'s return value`,
  );
  const checked = req.stage === "before" ? validateBefore(returned) : validateAfter(returned);
  if (!checked.ok) throw fail("hook_invalid_return", checked.error);
  return checked.value;
}

export function createAdapterSandbox(provider: EngineProvider) {
  /** Evaluates a compiled adapter once and reads its definition (compile time). */
  async function inspectAdapter(code: string): Promise<Result<AdapterDefinition, SandboxError>> {
    // The contract is read right after the top level, in the module phase.
    const inspected = await inspectInvocation(provider, {
      kind: "adapter-inspect",
      code,
      extensions: EXTENSIONS,
      prepare: (call) => readAdapter(call, true),
    });
    if (!inspected.ok) return err(inspected.error);
    const record = inspected.value;
    const definition: AdapterDefinition = { apiVersion: record.apiVersion, stages: record.stages };
    if (record.hasContract) definition.publicContract = record.publicContract;
    return ok(definition);
  }

  /** Runs one stage on the code's memory image (built on the code's first call in the isolate). */
  function runAdapterStage(req: StageRequest): Promise<InvocationReport<BeforeOutcome | AfterOutcome>> {
    const calledAtMs = Date.parse(req.context.calledAt);
    return runInvocation(
      provider,
      stageImage(req.code),
      { nowMs: Number.isFinite(calledAtMs) ? calledAtMs : 0, seed: req.context.requestId },
      (call, record) => runStage(call, record, req),
    );
  }

  return { inspectAdapter, runAdapterStage };
}
