// Workspace files (`lib/…` lambdas, `plugins/…` plugins) in the sandbox: one
// evaluation at compile time that reads what the module exports, and a run of
// one exported function with a JSON input. Every run starts from the code's
// memory image, so each invocation sees a fresh module as its top level left
// it; a run that awaits a host capability parks its state meanwhile.
import type { Json } from "../json";
import { err, ok, type Result } from "../result";
import type { Call, HostCall } from "./call/call";
import { FUEL } from "./call/fuel";
import { preludeKey } from "./engine/base";
import { fail } from "./engine/failure";
import type { EngineProvider } from "./image/provider";
import { inspectInvocation, runInvocation } from "./invocation";
import { MODULE_EXPORTS_JS, type PreludeExtension } from "./prelude";
import type { InvocationReport, SandboxError } from "./types";

/** Largest JSON description of a module's exports read at inspection, in characters. */
export const MODULE_SHAPE_CHARS = 64 * 1024;

// Reads the module's export shape in the sandbox (api.inspectModule): prelude/module-exports.js.
export const moduleExtension: PreludeExtension = { name: "module", source: MODULE_EXPORTS_JS };

/** `typeof` of an exported value, with `null` and `array` told apart; `accessor` for a getter. */
export type ExportType = string;

/** What a compiled module exports, as read right after its top level ran. */
export interface ModuleShape {
  /** Named exports (everything but `default`), in the bundle's order (esbuild sorts them by name). */
  named: { name: string; type: ExportType }[];
  /** The default export, or null when there is none. */
  default: {
    type: ExportType;
    /** An object literal (prototype Object.prototype or null). */
    plainObject: boolean;
    /** Own keys of a plain-object default export; `key` is null for a symbol. */
    members: { key: string | null; type: ExportType }[];
  } | null;
}

/** One call of an exported function: a lib function (`["main"]`) or a plugin hook (`["default", "chat.params"]`). */
export interface ModuleCall {
  /** Compiled script as produced by the compiler. */
  code: string;
  exportPath: readonly string[];
  /** Passed as the function's single argument. */
  input: Json;
  /** What Date.now() returns inside the call. */
  nowMs: number;
  /** Seeds Math.random (use the request id, so a call replays identically). */
  seed: string;
  /** Async capabilities lent to the call; none by default (a call to one rejects). */
  hostCalls?: Readonly<Record<string, HostCall>>;
  /** Prelude extensions that define what the code can reach (e.g. a host namespace). */
  extensions?: readonly PreludeExtension[];
  /** The call's fuel budget (default LIMITS.fuelPerInvocation). */
  fuel?: number;
  /** The top level's own budget (default LIMITS.fuelPerInvocation). */
  moduleFuel?: number;
  /** Stops the call (`hook_cancelled`) when aborted: see CallOptions. */
  signal?: AbortSignal;
  /** Keep the code's image for the next call (default true); false for code run once. */
  keep?: boolean;
}

/** A settled call: `value` is absent when the function returned `undefined` (a plugin's "no change"). */
export interface ModuleReturn {
  value?: Json;
}

function readShape(call: Call): ModuleShape {
  call.meter.extend(MODULE_SHAPE_CHARS * FUEL.outputAllowancePerByte);
  const text = call.callApiText("inspectModule", [MODULE_SHAPE_CHARS]);
  if (text.startsWith("E")) throw fail("hook_invalid_module", text.slice(1));
  return JSON.parse(text.slice(1)) as ModuleShape;
}

const nothing = (): undefined => undefined;

export function createModuleSandbox(provider: EngineProvider) {
  /** Evaluates compiled code once (fixed clock and seed) and reads its exports (compile time). */
  async function inspectModule(code: string): Promise<Result<ModuleShape, SandboxError>> {
    const inspected = await inspectInvocation(provider, {
      kind: "module-inspect",
      code,
      extensions: [moduleExtension],
      prepare: readShape,
    });
    return inspected.ok ? ok(inspected.value) : err(inspected.error);
  }

  /** Runs one exported function on the code's image: its top level's state, then the call with `input`. */
  function runModuleExport(call: ModuleCall): Promise<InvocationReport<ModuleReturn>> {
    const label = `${call.exportPath.join(".")}'s return value`;
    const extensions = call.extensions ?? [];
    return runInvocation(
      provider,
      {
        kind: `module:${preludeKey(extensions)}`,
        code: call.code,
        extensions,
        ...(call.moduleFuel === undefined ? {} : { moduleFuel: call.moduleFuel }),
        ...(call.keep === undefined ? {} : { keep: call.keep }),
        prepare: nothing,
      },
      {
        nowMs: call.nowMs,
        seed: call.seed,
        ...(call.hostCalls === undefined ? {} : { hostCalls: call.hostCalls }),
        ...(call.fuel === undefined ? {} : { fuel: call.fuel }),
        ...(call.signal === undefined ? {} : { signal: call.signal }),
      },
      async (running) => {
        // The `json` builder spreads the array it gets: the input is the one argument.
        const value = await running.invokeOptional(call.exportPath, "json", [call.input], label);
        return value === undefined ? {} : { value };
      },
    );
  }

  return { inspectModule, runModuleExport };
}
