// Types of meter-wasm.mjs.
export const METERED_WASM: string;
export function meterWasm(input: Uint8Array): {
  bytes: Uint8Array;
  address: number;
  /** Loops metered. */
  loops: number;
  /** The interpreter's dispatch loops, left to fuel. */
  unmetered: number;
};
export function ensureMeteredWasm(): boolean;
/** The bytes of the metered build (written first when missing or stale) or of the package's own. */
export function wasmBytes(build: "metered" | "package"): Uint8Array<ArrayBuffer>;
/** A signed LEB128, as i32.const takes its value. */
export function sleb(value: number): number[];
