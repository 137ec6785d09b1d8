// @ts-check
// Prelude extension for tool adapters: the branded
// defineToolAdapter global, the stage context and its helpers, and the
// module inspection used at compile time.

const adapterBrand = new WeakSetCtor();
const ADAPTER_KEYS = ["apiVersion", "publicContract", "before", "after"];
const defineToolAdapter = function defineToolAdapter(definition) {
  if (!isObjectLike(definition) || isArray(definition))
    throw new TypeErr("defineToolAdapter expects an object");
  const keys = ownKeys(definition);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    let known = false;
    for (let j = 0; j < ADAPTER_KEYS.length; j++) if (ADAPTER_KEYS[j] === key) known = true;
    if (!known) {
      throw new TypeErr("defineToolAdapter: unknown key " + jsonStringify(toStr(key)));
    }
  }
  const copy = objCreate(ObjectProto);
  for (let i = 0; i < ADAPTER_KEYS.length; i++) {
    const key = ADAPTER_KEYS[i];
    if (hasOwn(definition, key)) defineProp(copy, key, descriptor(definition[key], true, false, false));
  }
  objFreeze(copy);
  apply(weakSetAdd, adapterBrand, [copy]);
  return copy;
};
defineProp(G, "defineToolAdapter", {
  value: defineToolAdapter,
  writable: false,
  enumerable: false,
  configurable: false,
});

const deepFreeze = (value) => {
  if (!isObjectLike(value) || objIsFrozen(value)) return value;
  objFreeze(value);
  const keys = ownKeys(value);
  for (let i = 0; i < keys.length; i++) deepFreeze(getOwnDesc(value, keys[i]).value);
  return value;
};

// Validates the module's shape; returns "E" + problem or "J" + a JSON record.
// A negative contractChars skips reading publicContract (stage runs need only the shape).
api.inspectAdapter = (contractChars) => {
  const exportsObject = G.__rayrunModule;
  if (!isObjectLike(exportsObject)) return "Ethe compiled module defines no exports";
  const keys = ownKeys(exportsObject);
  const extra = [];
  let hasDefault = false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (key === "__esModule") continue;
    const desc = getOwnDesc(exportsObject, key);
    if (desc === undefined || !desc.enumerable) continue;
    if (key === "default") hasDefault = true;
    else defineProp(extra, extra.length, descriptor(toStr(key), true, true, true));
  }
  if (extra.length > 0)
    return "Eonly a default export is allowed; also exported: " + apply(arrayJoin, extra, [", "]);
  if (!hasDefault) return "Ethe module has no default export; export default defineToolAdapter({...})";
  const adapter = exportsObject.default;
  if (!apply(weakSetHas, adapterBrand, [adapter]))
    return "Ethe default export must be the value returned by defineToolAdapter({...})";
  const apiVersion = adapter.apiVersion;
  if (typeof apiVersion !== "string") return "EapiVersion must be a string";
  let contract = "null";
  if (adapter.publicContract !== undefined && contractChars >= 0) {
    const text = toJsonText(adapter.publicContract, "publicContract", contractChars);
    if (text === "L") return "EpublicContract is larger than " + contractChars + " characters of JSON";
    if (apply(strSlice, text, [0, 1]) === "E") return text;
    contract = apply(strSlice, text, [1]);
  }
  let stages = "";
  for (let i = 0; i < 2; i++) {
    const stage = i === 0 ? "before" : "after";
    const fn = adapter[stage];
    if (fn === undefined) continue;
    if (typeof fn !== "function") return "E" + stage + " must be a function";
    stages += (stages === "" ? "" : ",") + jsonStringify(stage);
  }
  return (
    'J{"apiVersion":' +
    jsonStringify(apiVersion) +
    ',"publicContract":' +
    contract +
    ',"hasContract":' +
    (adapter.publicContract !== undefined) +
    ',"stages":[' +
    stages +
    "]}"
  );
};

const hostBase64Encode = host.base64Encode;
const hostBase64Decode = host.base64Decode;
const encoding = objFreeze({
  base64Encode(value) {
    if (typeof value !== "string") throw new TypeErr("base64Encode expects a string");
    charge(value.length * PER_PARSE_CHAR);
    return hostBase64Encode(value);
  },
  base64Decode(value) {
    if (typeof value !== "string") throw new TypeErr("base64Decode expects a string");
    charge(value.length * PER_PARSE_CHAR);
    const result = hostBase64Decode(value);
    if (apply(strSlice, result, [0, 1]) === "E")
      throw new TypeErr("base64Decode: " + apply(strSlice, result, [1]));
    return apply(strSlice, result, [1]);
  },
});
const log = makeLoggers("log.");

// input: {stage, arguments?, result?, context}; the stage gets one object.
// Object literals define their properties (setters planted on Object.prototype
// never run) and cost far less than a descriptor per field; frozen, the
// context's fields are enumerable, read-only and non-configurable.
builders.adapterStage = (input) => {
  const source = input.context;
  const field = (key) => (hasOwn(source, key) ? source[key] : undefined);
  const context = objFreeze({
    calledAt: field("calledAt"),
    requestId: field("requestId"),
    workspaceUid: field("workspaceUid"),
    connectionId: field("connectionId"),
    toolUid: field("toolUid"),
    toolName: field("toolName"),
    config: deepFreeze(source.config),
    encoding,
    log,
  });
  const hasArguments = hasOwn(input, "arguments");
  const hasResult = hasOwn(input, "result");
  const stageInput = hasArguments
    ? hasResult
      ? { arguments: input.arguments, result: input.result, context }
      : { arguments: input.arguments, context }
    : hasResult
      ? { result: input.result, context }
      : { context };
  return [stageInput];
};

// The rehearsals' stand-in (bridge.js): an adapter's image is built with a
// rehearsal (Call.rehearse), which calls this instead of a hook through the
// same invoke, serialize and endPhase crossings a stage call makes, so that
// an image's first stage call does not pay those paths' first-use cost in a
// fresh runtime (measured in Node: a session's first stage call took ~105 µs,
// a second one ~70 µs, and rehearsing only the builder and a serialisation
// removed little of that). Only prelude code runs, on values it made itself:
// no hook function is called and no getter or setter of hook code can run
// (JSON.parse and object literals define properties; the walk reads own data
// properties). The log entry is dropped; nothing else it touches outlives it.
rehearsal.stage = (input) => {
  const data = isObjectLike(input) && hasOwn(input, "arguments") ? input.arguments : null;
  // A top level that vandalised what logging needs fails its call's own
  // log calls; the rehearsal's is dropped either way, so it never fails.
  try {
    makeLoggers("rehearsal.").info("rehearsal", { data });
  } catch {}
  logText = "";
  logCount = 0;
  // Outcomes are object literals of a few usual shapes; a runtime makes each
  // shape once, so the hook's own literals then find them made.
  const outcomes = [
    { action: "reject", reason: "", message: "" },
    { action: "return", result: data },
    { action: "continue", arguments: data },
  ];
  return outcomes[outcomes.length - 1];
};
