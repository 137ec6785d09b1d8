// What `execute` runs in the sandbox: the model's function body, its types erased, as the one
// export of a module, with a prelude extension that gives it three globals and
// no capability of its own:
//  - `tools`: any property is an async function whose call is one host call
//    `tool` ({ name, arguments }); the host answers a Result as JSON
//    ({ ok, value } or { ok, error }), and an error becomes a thrown
//    ToolError, so the code can catch it;
//  - `ToolError`: that error's class (`code`, `reason`, `message`, …), and
//    `ApprovalRequired`, its subclass for a call that needs a person's
//    approval (`approvalId`); catching it changes nothing, the host has
//    already ended the execution with the approval (execute.ts);
//  - `console`: loggers kept with the execution (the sandbox's log bounds).
// The host call is the same mechanism request hooks use for `rayrun.lambda`
// and `rayrun.model`: the execution parks while a call is in flight, and calls
// started together (`Promise.all`) are in flight together.
import type { PreludeExtension } from "../../../shared/sandbox";
import { stripTypes } from "./strip-types";

/** The host call every `tools.<name>(args)` makes. */
export const TOOL_HOST_CALL = "tool";

// Prelude JS: runs once per base image, inside the prelude's closure (see
// shared/sandbox/prelude/index.ts for the names it can use). No comments in
// it: the prelude's compaction keeps only code lines.
const CODE_MODE_JS = `
const codeModeErrorBase = G.Error;
const codeModeErrorFields = ["code", "reason", "approvalId", "requestId", "rpcCode", "data"];
class ToolError extends codeModeErrorBase {
  constructor(info) {
    super(isObjectLike(info) && typeof info.message === "string" ? info.message : "tool call failed");
    defineProp(this, "name", descriptor("ToolError", false, true, true));
    for (let i = 0; i < codeModeErrorFields.length; i++) {
      const key = codeModeErrorFields[i];
      if (isObjectLike(info) && hasOwn(info, key)) defineProp(this, key, descriptor(info[key], true, false, true));
    }
  }
}
defineProp(G, "ToolError", descriptor(ToolError, false, true, true));
class ApprovalRequired extends ToolError {
  constructor(info) {
    super(info);
    defineProp(this, "name", descriptor("ApprovalRequired", false, true, true));
  }
}
defineProp(G, "ApprovalRequired", descriptor(ApprovalRequired, false, true, true));
const codeModeSettle = (reply) => {
  if (isObjectLike(reply) && reply.ok === true) return reply.value;
  const error = isObjectLike(reply) ? reply.error : null;
  if (isObjectLike(error) && error.code === "approval_required") throw new ApprovalRequired(error);
  throw new ToolError(error);
};
const codeModeCall = (name, args) =>
  apply(promiseThen, callHost(${JSON.stringify(TOOL_HOST_CALL)}, { name: name, arguments: args === undefined ? null : args }), [codeModeSettle]);
const codeModeHandler = objCreate(null);
codeModeHandler.get = (target, key) =>
  typeof key === "string" && key !== "then" ? (args) => codeModeCall(key, args) : undefined;
codeModeHandler.set = () => false;
codeModeHandler.defineProperty = () => false;
defineProp(G, "tools", descriptor(new Proxy(objCreate(null), codeModeHandler), false, false, false));
const codeModeLoggers = makeLoggers("console.");
const codeModeLog = (level) => (...values) => {
  let message = "";
  const data = [];
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (typeof value === "string") message = message === "" ? value : message + " " + value;
    else data[data.length] = value;
  }
  if (message.length > LOG_MESSAGE_CHARS) message = apply(strSlice, message, [0, LOG_MESSAGE_CHARS]);
  const logger = codeModeLoggers[level];
  if (data.length === 0) logger(message);
  else logger(message, data.length === 1 ? data[0] : data);
};
const codeModeConsole = objCreate(ObjectProto);
codeModeConsole.log = codeModeLog("info");
codeModeConsole.info = codeModeLog("info");
codeModeConsole.debug = codeModeLog("debug");
codeModeConsole.warn = codeModeLog("warn");
codeModeConsole.error = codeModeLog("error");
objFreeze(codeModeConsole);
defineProp(G, "console", descriptor(codeModeConsole, false, true, true));
`;

export const CODE_MODE_EXTENSION: PreludeExtension = { name: "code-mode", source: CODE_MODE_JS };

/** The export `execute` calls. */
export const ENTRY = "main";

/**
 * The model's function body, its TypeScript erased line for line
 * (strip-types.ts), as compiled code (the compiler's module shape:
 * `__rayrunModule` holds the exports). Code that cannot be erased becomes a
 * body that throws a SyntaxError saying why, so the execution fails like any
 * other syntax error. Text that closes the function early only changes its own
 * module: the sandbox lends it nothing either way.
 */
export function executionModule(source: string): string {
  const stripped = stripTypes(source);
  const body = stripped.ok ? stripped.value : `throw new SyntaxError(${JSON.stringify(stripped.error)});`;
  return `var __rayrunModule = (() => {\nreturn { ${ENTRY}: async function () {\n${body}\n} };\n})();`;
}
