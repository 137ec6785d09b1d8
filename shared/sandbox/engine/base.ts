// A prelude installed in a VM: the private `api` object it returns and the
// api functions calls use, looked up once. Every handle here is made while the
// base is built, before its image is taken, so it stays valid in every state
// restored from that image (a handle made during a call would point into
// memory the next restore takes back).
import { Scope, UsingDisposable, type QuickJSHandle } from "quickjs-emscripten-core";
import { buildPrelude, type PreludeExtension } from "../prelude";
import { fileAtomOf } from "./code-layout";
import { encodeSource, type DirectResult, type EncodedSource } from "./direct-call";
import type { Instance } from "./instance";
import type { Vm } from "./vm";
import { err, ok } from "../../result";

/** The api functions the host calls; a base has those its prelude defines. */
const API_FUNCTIONS = [
  "invoke",
  "serialize",
  "endPhase",
  "setCall",
  "describeError",
  "inspectAdapter",
  "inspectModule",
] as const;
export type ApiFunction = (typeof API_FUNCTIONS)[number];

/** The cache key of a prelude: its extensions' names. */
export const preludeKey = (extensions: readonly PreludeExtension[]): string =>
  extensions.map((extension) => extension.name).join("+");

const preludeSources = new Map<string, EncodedSource>();
function preludeSource(key: string, extensions: readonly PreludeExtension[]): EncodedSource {
  let source = preludeSources.get(key);
  if (source === undefined) {
    source = encodeSource(buildPrelude(extensions));
    preludeSources.set(key, source);
  }
  return source;
}

/** Why a prelude could not be installed (never the hook's fault). */
export class PreludeFailure extends Error {
  override name = "PreludeFailure";
}

/**
 * Like its VM, a base on an image is never disposed; one in a runtime of a
 * call's own is disposed before its VM.
 */
export class Base extends UsingDisposable {
  private constructor(
    /** Owns the api object and its functions. */
    private readonly scope: Scope,
    readonly vm: Vm,
    readonly key: string,
    readonly api: QuickJSHandle,
    private readonly functions: ReadonlyMap<ApiFunction, QuickJSHandle>,
    /** The atom of the prelude's file name: the meter tells our own frames by it (../call/fuel.ts). */
    readonly preludeAtom: number,
  ) {
    super();
  }

  /** Evaluates the prelude in `vm` and keeps what calls need of it. */
  static install(vm: Vm, extensions: readonly PreludeExtension[], engine: Instance): Base {
    const key = preludeKey(extensions);
    const source = preludeSource(key, extensions);
    const ctx = vm.context;
    vm.resetSetup();
    let evaluated: DirectResult<QuickJSHandle>;
    if (vm.direct !== null) {
      evaluated = vm.direct.evalStrictGlobal(source, "prelude.js");
    } else {
      const result = ctx.evalCode(source.text, "prelude.js", { type: "global", strict: true });
      evaluated = result.error ? err(result.error) : ok(result.value);
    }
    if (!evaluated.ok)
      throw new PreludeFailure(`the sandbox prelude failed: ${dumpError(vm, evaluated.error)}`);
    const called = evaluated.value.consume((prelude) => ctx.callFunction(prelude, ctx.undefined, vm.host));
    if (called.error) throw new PreludeFailure(`the sandbox prelude failed: ${dumpError(vm, called.error)}`);
    const scope = new Scope();
    const api = scope.manage(called.value);
    const functions = new Map<ApiFunction, QuickJSHandle>();
    for (const name of API_FUNCTIONS) {
      const fn = ctx.getProp(api, name);
      if (ctx.typeof(fn) === "function") functions.set(name, scope.manage(fn));
      else fn.dispose();
    }
    const invoke = functions.get("invoke");
    const preludeAtom =
      invoke === undefined ? -1 : fileAtomOf(engine.memory, engine.layout.codeLength, invoke.value);
    return new Base(scope, vm, key, api, functions, preludeAtom);
  }

  get alive(): boolean {
    return this.scope.alive;
  }

  /** Frees the base's handles (a runtime of a call's own, before it is freed). */
  dispose(): void {
    this.scope.dispose();
  }

  /** The api function `name` (a prelude without it is a programming error). */
  fn(name: ApiFunction): QuickJSHandle {
    const fn = this.functions.get(name);
    if (fn === undefined)
      throw new Error(`sandbox: the prelude ${JSON.stringify(this.key)} has no api.${name}`);
    return fn;
  }
}

function dumpError(vm: Vm, error: QuickJSHandle): string {
  try {
    return JSON.stringify(vm.context.dump(error));
  } catch {
    return "an unreadable error";
  } finally {
    error.dispose();
  }
}
