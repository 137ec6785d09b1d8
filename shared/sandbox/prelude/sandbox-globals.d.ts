// What the sandbox JS in this folder (the *.js files, `// @ts-check`) may use
// besides the language's own globals; checked by ./tsconfig.json alone (the
// Workers' tsconfig excludes this file). That JS runs in QuickJS, not in
// workerd or Node, so it gets ES globals only: no DOM, Node or Workers types.
//
// The *.js files are not modules: index.ts joins them into the body of one
// function, `(function (host) { "use strict"; …parts… return api; })`, so the
// top-level names of one part are the next parts' to use. The checker sees
// them the same way: script files share one global scope.

/** The host bridge the prelude function is called with (Vm.makeHost in ../engine/vm.ts). */
declare const host: {
  /** Borrows fuel: the units granted, or -1 when the call is out of fuel. */
  lease(amount: number): number;
  /** Starts a loop of the prelude's own over hook data; a mark for walkRefund, or -1. */
  walkMark(pure: boolean): number;
  /** The loop since `mark` ended (steps -1: the host counts them). */
  walkRefund(mark: number, steps: number): void;
  /** A built-in just made a large string or array. */
  retune(): void;
  /** A log call was refused (the violation is sticky on both sides). */
  logRefused(reason: string): void;
  utf8Bytes(text: string): number;
  base64Encode(value: string): string;
  /** "V" + the decoded text, or "E" + what is wrong. */
  base64Decode(value: string): string;
  /** An async host capability: JSON text in, a promise of JSON text out. */
  call(name: string, input: string): Promise<string>;
  readonly logEntries: number;
  readonly logMessageChars: number;
  readonly logDataBytes: number;
};

/** request-hook-namespace.js: the namespace's name, defined ahead of it by shared/llm/hook-extensions.ts. */
declare const NAMESPACE: string;
/** request-hook-namespace.js: the alias global's name, defined ahead of it by shared/llm/hook-extensions.ts. */
declare const ALIAS_NAMESPACE: string;
/** plugin-tool-defs.js: the largest JSON text of one tool's parameters, defined ahead of it by shared/plugins/tool-sandbox.ts. */
declare const PLUGIN_TOOL_PARAMETERS_CHARS: number;
/** plugin-chat-params.js: the chat.params keys, defined ahead of it by shared/plugins/chat-params.ts. */
declare const CHAT_PARAM_KEYS: readonly string[];

// QuickJS's own global: the class of its stack overflow and out-of-memory errors.
declare var InternalError: ErrorConstructor;
// The compiled hook module's exports, set by its bundle's top level: anything,
// which the prelude inspects before use.
// oxlint-disable-next-line typescript/no-explicit-any
declare var __rayrunModule: any;

// Annex B accessors of Object.prototype that the prelude watches (plain.js) and reads through (regexp-split.js).
interface Object {
  __defineGetter__(key: PropertyKey, getter: () => unknown): void;
  __defineSetter__(key: PropertyKey, setter: (value: unknown) => void): void;
  __lookupGetter__(key: PropertyKey): (() => unknown) | undefined;
}
