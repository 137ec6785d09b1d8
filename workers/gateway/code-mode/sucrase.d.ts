// Types for the two sucrase modules typescript.ts imports by path: its
// parser state must be the very module instance its `transform` uses, so both
// come from the package's ES build, which ships no declarations beside it.
declare module "sucrase/dist/esm/index.js" {
  export { transform } from "sucrase";
}

declare module "sucrase/dist/esm/parser/tokenizer/state.js" {
  /** The parser's position when it starts a guess it may take back. */
  export interface StateSnapshot {
    pos: number;
    error: (SyntaxError & { pos?: number }) | null;
  }

  /** The parser's state; it backtracks by restoring a snapshot. */
  export default class State {
    pos: number;
    error: (SyntaxError & { pos?: number }) | null;
    // A property, not a method: strip-types.ts replaces it with one that calls the original.
    restoreFromSnapshot: (this: State, snapshot: StateSnapshot) => void;
  }
}
