// Starts one TypeScript worker for one editor and wraps it with Comlink; the wrapped object is
// what @valtown/codemirror-ts's worker facet expects.
import type { WorkerShape } from "@valtown/codemirror-ts/worker";
import * as Comlink from "comlink";
import type { TsSetup } from "./ts-protocol";
import type { TsWorkerApi } from "./ts-worker";

export interface TsClient {
  remote: Comlink.Remote<TsWorkerApi>;
  /** The same object, typed for the library's facet. */
  shape: WorkerShape;
  ready: Promise<void>;
  dispose(): void;
}

export function startTsWorker(setup: TsSetup): TsClient {
  const worker = new Worker(new URL("./ts-worker.ts", import.meta.url), {
    type: "module",
    name: "typescript",
  });
  const remote = Comlink.wrap<TsWorkerApi>(worker);
  return {
    remote,
    // Our worker implements the methods the facet's extensions call (updateFile, getAutocompletion, getHover).
    shape: remote as unknown as WorkerShape,
    ready: remote.initialize(setup),
    dispose: () => {
      remote[Comlink.releaseProxy]();
      worker.terminate();
    },
  };
}
