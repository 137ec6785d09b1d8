// What the editor and its TypeScript worker exchange (plain, structured-clonable values).

export interface TsSetup {
  /** The hook file's path in the virtual file system, e.g. `/hook.ts`. */
  path: string;
  code: string;
  /** The target's generated declarations (a global script); "" while unavailable. */
  declarations: string;
  /** noImplicitAny: on for adapters (typed by defineToolAdapter), off for lib and plugin files. */
  strict: boolean;
}

export interface LintReply {
  from: number;
  to: number;
  message: string;
  severity: "error" | "warning" | "info";
  source: string;
}

export interface CompletionReply {
  from: number;
  options: { label: string; type: string | undefined; boost: number }[];
}

export interface HoverReply {
  start: number;
  end: number;
  typeDef: null;
  quickInfo: {
    displayParts: { text: string; kind: string }[];
    documentation: { text: string; kind: string }[];
    tags: unknown;
  };
}
