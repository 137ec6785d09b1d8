// @ts-check
// Prelude part 5: what the host calls. Values leave the sandbox only as JSON
// text produced here by a strict walk (no toJSON, no getters, no prototypes),
// and errors only as a small description read from data properties, so
// nothing hook code planted on prototypes runs on the way out.

const MAX_DEPTH = 64;
const MESSAGE_CHARS = 1000;
const FAIL = objCreate(null);
const TOO_LARGE = objCreate(null);
let failure = "";
const pathKeys = objCreate(null);
const pathValues = objCreate(null);
const pathText = (label, depth) => {
  let text = label;
  for (let i = 0; i < depth; i++) {
    const key = pathKeys[i];
    text += typeof key === "number" ? "[" + key + "]" : "." + key;
  }
  return text;
};
const kindOf = (value) => {
  const proto = getProto(value);
  const ctor = proto === null ? undefined : getOwnDesc(proto, "constructor");
  const name =
    ctor !== undefined && hasOwn(ctor, "value") && typeof ctor.value === "function" ? ctor.value.name : "";
  return typeof name === "string" && name !== "" ? name : "object with a custom prototype";
};

// The native JSON.stringify consults these prototypes (toJSON, and the
// engine's own scratch arrays read and write indices through
// Array.prototype), so output is refused rather than built on a vandalised base.
const isIndexKey = (key) => typeof key === "string" && key !== "" && toStr(+key >>> 0) === key;
const prototypeTampering = () => {
  if (getOwnDesc(ObjectProto, "toJSON") !== undefined || getOwnDesc(ArrayProto, "toJSON") !== undefined) {
    return "added toJSON to Object.prototype or Array.prototype";
  }
  // Array.prototype is an array: an index on it makes its length larger than
  // that index (its length cannot become an accessor, and cutting it back
  // deletes the index or fails), so a length of 0 means no index. Own keys
  // list array indices first, in ascending order, so for Object.prototype
  // the first key decides. "4294967295" looks like an index without being
  // one, so it is asked for by name. Listing and testing every key of both
  // prototypes cost more than the rest of serializing a typical result.
  const arrayIndexed = getOwnDesc(ArrayProto, "length").value !== 0;
  const objectKeys = ownKeys(ObjectProto);
  if (
    arrayIndexed ||
    (objectKeys.length > 0 && isIndexKey(objectKeys[0])) ||
    hasOwn(ArrayProto, "4294967295") ||
    hasOwn(ObjectProto, "4294967295")
  ) {
    return "defined indexed properties on Array.prototype or Object.prototype";
  }
  return "";
};

// Returns "J" + JSON text, "E" + what is wrong, or "L" when longer than maxChars.
// A validating walk first (plain data only, depth, cycles, a running lower
// bound of the JSON length so oversized values stop early), then the captured
// native JSON.stringify; toJSON can only come from tampered prototypes, which
// are checked, and objects that pass the walk have no function values.
// The walk's state lives here rather than in closures made per call (a
// quarter of a small value's serialisation); a getter the walk reads may log,
// which serialises again, so a serialisation inside a walk saves and restores it.
let walkSize = 0;
let walkMax = 0;
let walkLabel = "";
// A long walk runs as a pure region (../call/fuel.ts): its steps do constant work
// each and pay nothing for the hook's heap and code, so serialising a large
// value costs the same whatever else the hook holds. That is sound only while
// no hook code runs: a proxy, an array that had properties defined on it, or
// an accessor property (each found without running hook code, see the
// plain-data part) ends the region for the rest of the walk, and what the
// walk then reads, getters included, pays full price.
const WALK_PURE_AFTER = 64;
let walkSteps = 0;
let walkMark = -1;
let walkImpure = false;
// Enters the region once the walk is long, unless an object on its path
// (whose remaining elements or keys it still reads) may run hook code.
const enterPure = (depth) => {
  for (let i = 0; i <= depth; i++) {
    if (mayRunHookCode(pathValues[i])) {
      walkImpure = true;
      return;
    }
  }
  walkMark = hostWalkMark(true);
};
const leavePure = () => {
  walkImpure = true;
  if (walkMark < 0) return;
  hostWalkRefund(walkMark, -1);
  walkMark = -1;
};
const walkFail = (depth, what) => {
  failure = pathText(walkLabel, depth) + " " + what;
  throw FAIL;
};
// Anything but a string, finite number, boolean, null or object.
const walkNonJson = (item, depth) => {
  if (typeof item === "number") walkFail(depth, "is " + toStr(item) + ", which is not JSON");
  walkFail(
    depth,
    "is " + (typeof item === "undefined" ? "undefined" : "a " + typeof item) + ", which is not JSON",
  );
};
// An object (not null): its primitives inline (a call per element would
// dominate the walk), each adding a lower bound of its JSON length.
const walkObject = (item, depth) => {
  if (depth >= MAX_DEPTH) walkFail(depth, "nests deeper than " + MAX_DEPTH + " levels");
  for (let i = 0; i < depth; i++) if (pathValues[i] === item) walkFail(depth, "is a circular reference");
  pathValues[depth] = item;
  if (walkMark >= 0 && mayRunHookCode(item)) leavePure();
  walkSteps += depth + 5;
  if (walkMark < 0 && !walkImpure && walkSteps >= WALK_PURE_AFTER) enterPure(depth);
  charge(1);
  let size = walkSize;
  if (isArray(item)) {
    const length = item.length;
    size += length + 1;
    if (size > walkMax) throw TOO_LARGE;
    for (let i = 0; i < length; i++) {
      if (walkMark < 0 && !walkImpure && ++walkSteps >= WALK_PURE_AFTER) enterPure(depth);
      const element = item[i];
      const type = typeof element;
      if (type === "string") size += element.length + 2;
      else if (type === "number" && element - element === 0) size += 1;
      else if (type === "boolean" || element === null) size += 4;
      else {
        pathKeys[depth] = i;
        if (element === undefined && !hasOwn(item, i)) walkFail(depth + 1, "is a hole in a sparse array");
        walkSize = size;
        if (type === "object") walkObject(element, depth + 1);
        else walkNonJson(element, depth + 1);
        size = walkSize;
      }
      if (size > walkMax) throw TOO_LARGE;
    }
  } else {
    const proto = getProto(item);
    if (proto !== ObjectProto && proto !== null)
      walkFail(depth, "is a " + kindOf(item) + ", not a plain object");
    const keys = objKeys(item);
    size += keys.length + 1;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      if (walkMark < 0 && !walkImpure && ++walkSteps >= WALK_PURE_AFTER) enterPure(depth);
      if (walkMark >= 0 && getterOf(item, key) !== undefined) leavePure();
      const element = item[key];
      const type = typeof element;
      size += key.length + 3;
      if (type === "string") size += element.length + 2;
      else if (type === "number" && element - element === 0) size += 1;
      else if (type === "boolean" || element === null) size += 4;
      else {
        pathKeys[depth] = key;
        walkSize = size;
        if (type === "object") walkObject(element, depth + 1);
        else walkNonJson(element, depth + 1);
        size = walkSize;
      }
      if (size > walkMax) throw TOO_LARGE;
    }
  }
  walkSize = size;
  pathValues[depth] = undefined;
};
let walking = false;
const toJsonText = (value, label, maxChars) => {
  const tampering = prototypeTampering();
  if (tampering !== "") return "E" + label + " cannot be serialized because the hook " + tampering;
  const outerSize = walkSize;
  const outerMax = walkMax;
  const outerLabel = walkLabel;
  const outerSteps = walkSteps;
  const outerMark = walkMark;
  const outerImpure = walkImpure;
  // Only a getter run by a walk serialises inside one: then the outer walk's
  // path (for its messages and cycle checks) is kept aside too.
  /** @type {unknown[] | null} */
  const outerPath = walking ? [] : null;
  if (outerPath !== null) {
    for (let i = 0; i < MAX_DEPTH; i++) {
      outerPath[i] = pathKeys[i];
      outerPath[MAX_DEPTH + i] = pathValues[i];
    }
  }
  walking = true;
  walkSize = 0;
  walkMax = maxChars;
  walkLabel = label;
  walkSteps = 0;
  walkMark = -1;
  walkImpure = false;
  try {
    const type = typeof value;
    if (type === "string") walkSize = value.length + 2;
    else if (type === "number" && value - value === 0) walkSize = 1;
    else if (type === "boolean" || value === null) walkSize = 4;
    else if (type === "object") walkObject(value, 0);
    else walkNonJson(value, 0);
    if (walkSize > maxChars) throw TOO_LARGE;
  } catch (error) {
    // A walk that returns clears its own entries; one that throws leaves them.
    for (let i = 0; i < MAX_DEPTH; i++) pathValues[i] = undefined;
    if (error === FAIL) return "E" + failure;
    if (error === TOO_LARGE) return "L";
    throw error;
  } finally {
    if (walkMark >= 0) hostWalkRefund(walkMark, -1);
    walkSteps = outerSteps;
    walkMark = outerMark;
    walkImpure = outerImpure;
    walkSize = outerSize;
    walkMax = outerMax;
    walkLabel = outerLabel;
    walking = outerPath !== null;
    if (outerPath !== null) {
      for (let i = 0; i < MAX_DEPTH; i++) {
        pathKeys[i] = outerPath[i];
        pathValues[i] = outerPath[MAX_DEPTH + i];
      }
    }
  }
  const text = jsonStringify(value);
  if (typeof text !== "string") return "E" + label + " is not JSON";
  charge(text.length * PER_CHAR);
  return text.length > maxChars ? "L" : "J" + text;
};

const shorten = (text) =>
  text.length > MESSAGE_CHARS ? apply(strSlice, text, [0, MESSAGE_CHARS]) + "…" : text;
// Reads a data property along the prototype chain without running getters.
const dataProperty = (value, key) => {
  let current = value;
  for (let hops = 0; hops < 8 && current !== null; hops++) {
    const desc = getOwnDesc(current, key);
    if (desc !== undefined) return hasOwn(desc, "value") ? desc.value : undefined;
    current = getProto(current);
  }
  return undefined;
};

// Log entries stay in the sandbox until the phase ends: one JSON text the
// host takes with the phase's last crossing (api.endPhase), so a log call
// crosses nothing. A refusal is reported at once (host.logRefused): the host
// knows of a violation whenever it classifies a failure, and the violation is
// sticky on both sides.
const LOG_ENTRIES = host.logEntries;
const LOG_MESSAGE_CHARS = host.logMessageChars;
const LOG_DATA_BYTES = host.logDataBytes;
const hostLogRefused = host.logRefused;
const hostUtf8Bytes = host.utf8Bytes;
let logText = "";
let logCount = 0;
let logViolation = "";
const refuseLog = (reason) => {
  logViolation = reason;
  hostLogRefused(reason);
  throw new RangeErr(reason);
};
// The four loggers, their errors prefixed with how hooks reach them ("log.", "rayrun.log.").
const makeLoggers = (prefix) => {
  const make = (level) => {
    const head = "[" + jsonStringify(level) + ",";
    return {
      [level](message, data) {
        if (typeof message !== "string") throw new TypeErr(prefix + level + ": message must be a string");
        let dataText = "";
        if (data !== undefined) {
          dataText = toJsonText(data, "log data", LOG_DATA_BYTES);
          // Indexing a string primitive reads no prototype.
          if (dataText[0] === "E") throw new TypeErr(prefix + level + ": " + apply(strSlice, dataText, [1]));
        }
        charge(message.length * PER_CHAR);
        if (logViolation !== "") throw new RangeErr(logViolation);
        if (logCount >= LOG_ENTRIES) refuseLog("more than " + LOG_ENTRIES + " log entries");
        if (message.length > LOG_MESSAGE_CHARS)
          refuseLog("log message longer than " + LOG_MESSAGE_CHARS + " characters");
        // Only text longer than a third of the limit can be over it in UTF-8 (3 bytes per unit at most).
        if (
          dataText === "L" ||
          ((dataText.length - 1) * 3 > LOG_DATA_BYTES &&
            hostUtf8Bytes(apply(strSlice, dataText, [1])) > LOG_DATA_BYTES)
        ) {
          refuseLog("log data larger than " + LOG_DATA_BYTES + " bytes of JSON");
        }
        const entry =
          head +
          jsonStringify(message) +
          (dataText === "" ? "]" : "," + apply(strSlice, dataText, [1]) + "]");
        logText = logText === "" ? entry : logText + "," + entry;
        logCount++;
      },
    }[level];
  };
  return objFreeze({ debug: make("debug"), info: make("info"), warn: make("warn"), error: make("error") });
};

const api = objCreate(null);
// Starts a phase: its clock and random state, and no fuel left over from the last one
// (the host refunded that when the phase ended, see endPhase).
const setPhase = (nowMs, a, b, c, d) => {
  leased = 0;
  clockMs = nowMs;
  setRandomState(a, b, c, d);
};
api.setCall = setPhase;
api.serialize = (value, label, maxChars) => toJsonText(value, label, maxChars);
// Ends a phase: first the log entries it wrote, if any (JSON text, taken once),
// then, on the next call, the fuel it leased but did not spend (a number).
api.endPhase = () => {
  if (logText !== "") {
    const text = logText;
    logText = "";
    return text;
  }
  const rest = leased;
  leased = 0;
  return rest;
};
// What the host needs to classify a thrown value: {kind, name, message, engine}.
api.describeError = (error) => {
  const record = objCreate(null);
  record.kind = "value";
  record.name = "";
  record.engine = "";
  if (error === exportProblem) {
    record.kind = "export";
    record.message = error.message;
  } else if (isError(error)) {
    const name = dataProperty(error, "name");
    const message = dataProperty(error, "message");
    record.kind = "error";
    record.name = typeof name === "string" ? shorten(name) : "Error";
    record.message = typeof message === "string" ? shorten(message) : "";
    // Engine-made errors: a real error object of the engine's class with its
    // exact text as an own data property (the JSON parser reports overflow as
    // a SyntaxError). Hook code would need deliberate prototype tricks to
    // imitate this, and could only mislabel its own failure.
    const proto = getProto(error);
    const ownMessage = getOwnDesc(error, "message");
    if (ownMessage !== undefined && hasOwn(ownMessage, "value")) {
      if (message === "stack overflow" && (proto === InternalErrorProto || proto === SyntaxErrorProto))
        record.engine = "stack";
      else if (message === "out of memory" && proto === InternalErrorProto) record.engine = "memory";
    }
  } else if (error === null) {
    record.kind = "null";
    record.message = "null";
  } else if (typeof error === "object" || typeof error === "function") {
    record.message = "a non-Error " + (typeof error === "function" ? "function" : "object");
  } else {
    record.message = shorten(typeof error === "symbol" ? "a symbol" : toStr(error));
  }
  return record;
};

// Async host capabilities (request hooks, plugins): JSON in, promise of JSON out.
const hostCall = host.call;
const callHost = (name, value) => {
  const text = toJsonText(value, "host call input", 1048576);
  if (text === "L") throw new RangeErr("host call input is too large");
  if (apply(strSlice, text, [0, 1]) === "E") throw new TypeErr(apply(strSlice, text, [1]));
  return apply(promiseThen, hostCall(name, apply(strSlice, text, [1])), [(reply) => jsonParse(reply)]);
};

// Export lookup and call. Builders turn the host's JSON input into the call's
// arguments inside the sandbox (extensions add their own, e.g. adapter stages).
const builders = objCreate(null);
builders.json = (input) => input;
// Rehearsals (Call.rehearse) call the stand-in an extension sets here instead
// of a hook (adapter.js: the stage path, which adapter images rehearse).
const rehearsal = objCreate(null);
// A missing export is thrown as this private value: describeError reports it
// as kind "export" with the problem, which only the prelude can produce.
const exportProblem = objCreate(null);
exportProblem.message = "";
const resolveExport = (path) => {
  // A null path is the rehearsal's (only the host calls invoke).
  if (path === null) return [rehearsal.stage, rehearsal];
  let current = G.__rayrunModule;
  let parent;
  if (!isObjectLike(current)) {
    exportProblem.message = "the compiled module defines no exports";
    throw exportProblem;
  }
  for (let i = 0; i < path.length; i++) {
    parent = current;
    current = isObjectLike(parent) ? parent[path[i]] : undefined;
  }
  if (typeof current !== "function") {
    exportProblem.message =
      "the export " +
      jsonStringify(apply(arrayJoin, path, ["."])) +
      " is " +
      (current === undefined ? "missing" : "not a function");
    throw exportProblem;
  }
  return [current, parent];
};
// One crossing per call: the phase's clock and random state (when the host has
// not set them yet), the export lookup, the arguments built from the JSON
// input, and the call's first fuel lease (saving the host round trip its first
// charge would make; what is left is refunded with the rest, see endPhase).
api.invoke = (exportPathText, builderName, inputText, firstLease, nowMs, a, b, c, d) => {
  if (nowMs !== undefined) setPhase(nowMs, a, b, c, d);
  leased += firstLease;
  const build = builders[builderName];
  const found = resolveExport(jsonParse(exportPathText));
  return apply(found[0], found[1], build(jsonParse(inputText)));
};
