// The model's code is read as TypeScript (plain JavaScript is TypeScript too)
// and its types are erased before QuickJS compiles it. The gateway has no
// compiler, so the eraser is sucrase's TypeScript transform: pure JavaScript,
// no eval, no wasm. With its ES transforms off it only removes type syntax
// (annotations, interfaces, type aliases, `as`/`satisfies`/`!`, generics,
// overloads, `declare`) and keeps everything else as written, on the same line,
// so a line in an error still points at the line the model wrote. The two
// TypeScript features that are code, enums and constructor parameter
// properties, it turns into the equivalent JavaScript on the same lines.
//
// Two guards, because the code is untrusted and the eraser runs on the host,
// outside the sandbox's fuel:
//  - Cost. The parser guesses where TypeScript is ambiguous (`<` may open type
//    arguments, `(a): b =>` may be an arrow's return type) and backtracks when
//    a guess fails; nested guesses multiply, so a few hundred bytes of nested
//    ambiguity can take seconds. Every backtrack is charged the characters it
//    throws away plus a fixed cost, and a strip that goes over its budget
//    (linear in the code's size) stops and is refused. A failed guess is a
//    SyntaxError object, so stack traces are off while the strip runs: their
//    capture, not the parsing, was most of the cost of such code.
//  - Namespaces. Sucrase erases every `namespace`/`module` block, values
//    included, assuming they hold only types. TypeScript allows them only at a
//    module's top level, never in a function body, so one in the code is
//    refused rather than run with its declarations silently gone.
import { transform } from "sucrase/dist/esm/index.js";
import State, { type StateSnapshot } from "sucrase/dist/esm/parser/tokenizer/state.js";
import { err, ok, type Result } from "../../../shared/result";

/** Characters a strip may re-read when it backtracks: a floor, plus this many per character of code. */
export const BACKTRACK_FLOOR_CHARS = 64 * 1024;
export const BACKTRACK_CHARS_PER_CHAR = 16;
/** What one backtrack costs on top of the characters it throws away, in characters. */
const BACKTRACK_FIXED_CHARS = 64;

/** V8's Error: how many frames a new error's stack captures. */
const V8Error = Error as ErrorConstructor & { stackTraceLimit?: number };

// The body is parsed as what it is, a function body: a function declaration
// (not an arrow, so the parser makes no guess around it that a syntax error
// deep inside would be blamed on). Its first line is this header.
const HEAD = "async function __rayrunBody() {\n";
const TAIL = "\n}";

/** Re-read characters left to the running strip; unlimited outside one. */
let budget = Number.POSITIVE_INFINITY;

class TooCostly extends Error {}

const restore = State.prototype.restoreFromSnapshot;
State.prototype.restoreFromSnapshot = function (this: State, snapshot: StateSnapshot): void {
  // A failed guess stops at its error; sucrase then moves `pos` to the end of the input.
  const failedInside = this.error !== null && this.error !== snapshot.error;
  const reached = failedInside && typeof this.error?.pos === "number" ? this.error.pos : this.pos;
  budget -= BACKTRACK_FIXED_CHARS + Math.max(0, reached - snapshot.pos);
  if (budget < 0) throw new TooCostly();
  restore.call(this, snapshot);
};

/** A `namespace` or `module` block's opening, as written (the identifier is anything up to `{`). */
const NAMESPACE_OPENING = /\b(?:namespace|module)\s+(?:[^\s{}();,=]+|"[^"\n]*"|'[^'\n]*')\s*\{/g;
const countNamespaces = (text: string): number => text.match(NAMESPACE_OPENING)?.length ?? 0;

/** The erased body, or the message saying why it cannot be erased. */
export type Stripped = Result<string, string>;

/** Line and column (both from 1) of `pos` in the body, or null when it is past the body's end. */
function bodyPosition(wrapped: string, pos: number): { line: number; column: number } | null {
  if (pos < HEAD.length || pos >= wrapped.length - TAIL.length) return null;
  const before = wrapped.slice(HEAD.length, pos);
  const lineStart = before.lastIndexOf("\n") + 1;
  return { line: before.split("\n").length, column: before.length - lineStart + 1 };
}

function syntaxError(wrapped: string, error: SyntaxError & { pos?: unknown }): Stripped {
  // Sucrase appends the position in the wrapped text, "(line:column)"; it is given again in the body's terms.
  const what = error.message.replace(/\s*\(\d+:\d+\)$/, "");
  const at = typeof error.pos === "number" ? bodyPosition(wrapped, error.pos) : null;
  return err(
    at === null
      ? `${what} at the end of the code (is a bracket or a string left open?)`
      : `${what} at line ${at.line}, column ${at.column} of the code`,
  );
}

/** The body with its TypeScript erased, line for line, or why it cannot be. */
export function stripTypes(body: string): Stripped {
  const wrapped = HEAD + body + TAIL;
  budget = BACKTRACK_FLOOR_CHARS + BACKTRACK_CHARS_PER_CHAR * body.length;
  const frames = V8Error.stackTraceLimit;
  V8Error.stackTraceLimit = 0;
  let code: string;
  try {
    code = transform(wrapped, { transforms: ["typescript"], disableESTransforms: true }).code;
  } catch (error) {
    if (error instanceof TooCostly) {
      return err(
        "The code is too ambiguous to read as TypeScript within its budget (deeply nested `<`, conditionals or arrow functions); simplify or parenthesize it.",
      );
    }
    if (error instanceof RangeError) {
      return err("The code is nested too deeply to read.");
    }
    if (error instanceof SyntaxError) return syntaxError(wrapped, error);
    throw error;
  } finally {
    budget = Number.POSITIVE_INFINITY;
    V8Error.stackTraceLimit = frames;
  }
  if (countNamespaces(code) < countNamespaces(wrapped)) {
    return err(
      "A namespace or module declaration is not allowed in the code (TypeScript allows them only at the top level of a module); use an object instead.",
    );
  }
  // Erasing never touches the header or the closing brace; code that closes the
  // function early still keeps them at both ends, and only changes its own module.
  if (!code.startsWith(HEAD) || !code.endsWith(TAIL)) {
    return err("The code could not be read as a function body.");
  }
  return ok(code.slice(HEAD.length, code.length - TAIL.length));
}
