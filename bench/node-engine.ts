// The QuickJS engine for Node-side tools (the bench): the metered wasm the
// Workers import pre-compiled (shared/sandbox/wasm-workerd.ts), compiled here.
import { createEngineProvider } from "../shared/sandbox/image/provider";
import { meteredWasm } from "./wasm";

export const nodeEngines = createEngineProvider(meteredWasm);
