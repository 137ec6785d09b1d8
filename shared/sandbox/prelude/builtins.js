// @ts-check
// Prelude part 4: which built-ins are metered and how they are priced.
// Only built-ins whose C work grows with their input are wrapped; O(1) ones
// (charAt, pop, at, ...) are left alone because every call to them is already
// a counted interpreter step.

const strArg = (args, i) => {
  const value = args[i];
  if (value === undefined || isRegExp(value)) return 0;
  const s = strOf(value);
  args[i] = s;
  return s.length;
};
const intArg = (args, i) => {
  const n = +args[i];
  args[i] = n;
  return n;
};

// --- String.prototype -------------------------------------------------------
const SP = String.prototype;
const scan = (self, args) => self.length * PER_CHAR + strArg(args, 0) * PER_CHAR;
const search = (self, args) => {
  const m = strArg(args, 0);
  return self.length * PER_CHAR + self.length * (m > 0 ? m : 1) * PER_COMPARE;
};
meterAll(SP, ["indexOf", "lastIndexOf", "includes"], search, undefined, thisString);
meterAll(
  SP,
  ["startsWith", "endsWith", "localeCompare", "concat"],
  (self, args) => {
    let total = self.length;
    for (let i = 0; i < args.length; i++) total += strArg(args, i);
    return total * PER_CHAR;
  },
  undefined,
  thisString,
);
meterAll(
  SP,
  [
    "slice",
    "substring",
    "substr",
    "trim",
    "trimStart",
    "trimEnd",
    "trimLeft",
    "trimRight",
    "isWellFormed",
    "toWellFormed",
    "anchor",
    "big",
    "blink",
    "bold",
    "fixed",
    "fontcolor",
    "fontsize",
    "italics",
    "link",
    "small",
    "strike",
    "sub",
    "sup",
  ],
  scan,
  undefined,
  thisString,
);
meterAll(
  SP,
  ["toLowerCase", "toUpperCase", "toLocaleLowerCase", "toLocaleUpperCase", "normalize"],
  (self) => self.length * PER_CASE_CHAR,
  undefined,
  thisString,
);
meter(
  SP,
  "repeat",
  (self, args) => self.length * toLength(intArg(args, 0)) * PER_CHAR,
  undefined,
  thisString,
);
meterAll(
  SP,
  ["padStart", "padEnd"],
  (self, args) => toLength(intArg(args, 0)) * PER_CHAR + strArg(args, 1) * PER_CHAR,
  undefined,
  thisString,
);
meterAll(
  SP,
  ["replace", "replaceAll"],
  (self, args) => {
    const m = strArg(args, 0);
    const r = typeof args[1] === "function" ? 0 : strArg(args, 1);
    return (
      self.length * PER_CHAR + (m > 0 ? self.length * m * PER_COMPARE : 0) + self.length * (r + 1) * PER_CHAR
    );
  },
  undefined,
  thisString,
);
meter(
  SP,
  "split",
  (self, args) => {
    const m = strArg(args, 0);
    return self.length * PER_CHAR + self.length * (m > 0 ? m : 1) * PER_COMPARE;
  },
  resultLength(PER_ELEMENT),
  thisString,
);
meterAll(SP, ["match", "matchAll", "search"], (self) => self.length * PER_CHAR, undefined, thisString);
meterAll(String, ["fromCharCode", "fromCodePoint"], (self, args) => args.length * PER_ELEMENT);
meter(
  String,
  "raw",
  (self, args) => lengthOf(args[0] && args[0].raw) * PER_ELEMENT + args.length * PER_ELEMENT,
  resultLength(PER_CHAR),
);

// --- RegExp -------------------------------------------------------------------
// Backtracking is charged by regex polls; the linear part of each exec is
// charged afterwards from how far the match moved.
const RP = RegExpCtor.prototype;
const regExpExec = RP.exec;
const regExpGlobal = getOwnDesc(RP, "global").get;
const regExpSticky = getOwnDesc(RP, "sticky").get;
// Reads the internal flags, not properties hook code could shadow.
const execStart = (re) => {
  const own = getOwnDesc(re, "lastIndex");
  const positional = apply(regExpGlobal, re, []) || apply(regExpSticky, re, []);
  return positional && own !== undefined && typeof own.value === "number" ? toLength(own.value) : 0;
};
defineData(
  RP,
  "exec",
  {
    exec(input) {
      const text = strOf(input);
      let start = 0;
      try {
        start = execStart(this);
      } catch {}
      charge(1);
      const result = apply(regExpExec, this, [text]);
      const end = result === null ? text.length : +getOwnDesc(result, "index").value + 1;
      charge((end > start ? end - start : 1) * PER_CHAR);
      return result;
    },
  }.exec,
);
// @insert regexp-split.js
meter(RP, "compile", (self, args) => strArg(args, 0) * PER_PARSE_CHAR);
const symbolMethods = [Symbol.replace, Symbol.split, Symbol.match, Symbol.matchAll, Symbol.search];
meterAll(RP, symbolMethods, (self, args) => {
  const n = strArg(args, 0);
  const r = typeof args[1] === "string" ? args[1].length : 0;
  return n * (r + 1) * PER_CHAR;
});
// Once the Symbol methods are metered: the match method IsRegExp reads must still be that one (regexp-split.js).
matchMethod = RP[Symbol.match];

// --- Array ----------------------------------------------------------------
const AP = ArrayProto;
const elements = (per) => (self) => lengthOf(self) * per;
meterAll(
  AP,
  [
    "every",
    "some",
    "forEach",
    "map",
    "filter",
    "reduce",
    "reduceRight",
    "find",
    "findIndex",
    "findLast",
    "findLastIndex",
    "flatMap",
    "indexOf",
    "lastIndexOf",
    "includes",
    "fill",
    "copyWithin",
    "reverse",
    "toReversed",
    "slice",
    "toSpliced",
    "with",
    "shift",
  ],
  elements(PER_ELEMENT),
);
meter(AP, "splice", (self, args) => (lengthOf(self) + args.length) * PER_ELEMENT);
meter(AP, "push", (self, args) => args.length * PER_ELEMENT);
meter(AP, "unshift", (self, args) => (lengthOf(self) + args.length) * PER_ELEMENT);
meter(AP, "concat", (self, args) => {
  let total = lengthOf(self);
  for (let i = 0; i < args.length; i++) total += isArray(args[i]) ? lengthOf(args[i]) : 1;
  return total * PER_ELEMENT;
});
meter(AP, "flat", elements(PER_ELEMENT), resultLength(PER_ELEMENT));
meterAll(
  AP,
  ["join", "toString", "toLocaleString"],
  (self, args) => {
    const n = lengthOf(self);
    return n * PER_CONVERT + n * strArg(args, 0) * PER_CHAR;
  },
  resultLength(PER_CHAR),
);
meterAll(AP, ["sort", "toSorted"], (self) => {
  const n = lengthOf(self);
  return n > 1 ? n * (mathLog2(n) + 1) * PER_CONVERT : 0;
});
meter(
  Array,
  "from",
  (self, args) =>
    isObjectLike(args[0]) && !(Symbol.iterator in args[0]) ? lengthOf(args[0]) * PER_ELEMENT : 0,
  resultLength(PER_ELEMENT),
);
meter(Array, "of", (self, args) => args.length * PER_ELEMENT);

// --- Iterators (spread and for-of have fast paths that skip polls) ------------
const iteratorPrototypes = [
  getProto([][Symbol.iterator]()),
  getProto(""[Symbol.iterator]()),
  getProto(new Map()[Symbol.iterator]()),
  getProto(new Set()[Symbol.iterator]()),
  getProto(/x/[Symbol.matchAll]("")),
];
for (let i = 0; i < iteratorPrototypes.length; i++) meter(iteratorPrototypes[i], "next", free);

// --- Object, Reflect, JSON, Function ------------------------------------------
meterAll(
  O,
  [
    "keys",
    "values",
    "entries",
    "getOwnPropertyNames",
    "getOwnPropertySymbols",
    "getOwnPropertyDescriptors",
    "fromEntries",
    "groupBy",
  ],
  free,
  resultLength(PER_CONVERT),
);
meterAll(
  O,
  ["freeze", "seal", "preventExtensions", "isFrozen", "isSealed"],
  (self, args) => ownKeyCount(args[0]) * PER_ELEMENT,
);
meterAll(O, ["assign", "defineProperties", "create"], (self, args) => {
  let total = 0;
  for (let i = 1; i < args.length; i++) total += ownKeyCount(args[i]);
  return total * PER_CONVERT;
});
meter(R, "ownKeys", free, resultLength(PER_CONVERT));
meterAll(R, ["apply", "construct"], (self, args) => lengthOf(args[1]) * PER_ELEMENT);
const FP = getProto(function () {});
meter(FP, "apply", (self, args) => lengthOf(args[1]) * PER_ELEMENT);
meter(JSON, "parse", (self, args) => {
  args[0] = strOf(args[0]);
  return args[0].length * PER_PARSE_CHAR;
});
meter(JSON, "stringify", free, (result) => (typeof result === "string" ? result.length * PER_PARSE_CHAR : 0));
meterAll(
  G,
  [
    "parseInt",
    "parseFloat",
    "escape",
    "unescape",
    "encodeURI",
    "encodeURIComponent",
    "decodeURI",
    "decodeURIComponent",
  ],
  (self, args) => strArg(args, 0) * PER_PARSE_CHAR,
);

// --- Map / Set ------------------------------------------------------------
const setSize = getOwnDesc(Set.prototype, "size").get;
const sizeOf = (value) => {
  try {
    return apply(setSize, value, []);
  } catch {
    return lengthOf(value);
  }
};
meterAll(
  Set.prototype,
  [
    "union",
    "intersection",
    "difference",
    "symmetricDifference",
    "isSubsetOf",
    "isSupersetOf",
    "isDisjointFrom",
  ],
  (self, args) => {
    const other = args[0];
    let otherSize = 0;
    if (isObjectLike(other)) {
      const s = sizeOf(other);
      otherSize = typeof s === "number" ? toLength(s) : 0;
    }
    return (sizeOf(self) + otherSize) * PER_ELEMENT;
  },
);

// --- Typed arrays and buffers -------------------------------------------------
const TypedArray = getProto(Uint8Array);
const TAP = TypedArray.prototype;
const typedLength = getOwnDesc(TAP, "length").get;
const typedElements = (per) => (self) => {
  try {
    return apply(typedLength, self, []) * per;
  } catch {
    return 0;
  }
};
meterAll(
  TAP,
  [
    "every",
    "some",
    "forEach",
    "map",
    "filter",
    "reduce",
    "reduceRight",
    "find",
    "findIndex",
    "findLast",
    "findLastIndex",
    "indexOf",
    "lastIndexOf",
    "includes",
    "fill",
    "copyWithin",
    "reverse",
    "toReversed",
    "slice",
    "with",
  ],
  typedElements(PER_ELEMENT),
);
meterAll(TAP, ["join", "toLocaleString"], typedElements(PER_CONVERT), resultLength(PER_CHAR));
meter(TAP, "toString", typedElements(PER_CONVERT), resultLength(PER_CHAR));
meterAll(TAP, ["sort", "toSorted"], (self) => {
  const n = typedElements(1)(self);
  return n > 1 ? n * (mathLog2(n) + 1) * PER_ELEMENT : 0;
});
meter(TAP, "set", (self, args) => lengthOf(args[0]) * PER_ELEMENT);
meter(TAP, "subarray", free);
meterAll(
  TypedArray,
  ["from", "of"],
  (self, args) =>
    args.length * PER_ELEMENT +
    (isObjectLike(args[0]) && !(Symbol.iterator in args[0]) ? lengthOf(args[0]) * PER_ELEMENT : 0),
  resultLength(PER_ELEMENT),
);

// Constructors are replaced, keeping prototype identity, so species lookups
// (slice, map, subarray) also land on the metered versions.
const meterConstructor = (name, price, callable) => {
  const Original = G[name];
  if (typeof Original !== "function") return;
  const Metered = {
    [name]: function (...args) {
      if (new.target === undefined && !callable) throw new TypeErr("Constructor " + name + " requires 'new'");
      charge(1 + price(args));
      if (new.target === undefined) return apply(Original, undefined, args);
      return construct(Original, args, new.target === Metered ? Original : new.target);
    },
  }[name];
  defineProp(Metered, "prototype", {
    value: Original.prototype,
    writable: false,
    enumerable: false,
    configurable: false,
  });
  defineProp(Metered, "length", { value: Original.length, configurable: true });
  const statics = ownKeys(Original);
  for (let i = 0; i < statics.length; i++) {
    const key = statics[i];
    if (key === "prototype" || key === "length" || key === "name") continue;
    defineProp(Metered, key, getOwnDesc(Original, key));
  }
  R.setPrototypeOf(Metered, getProto(Original));
  defineData(Original.prototype, "constructor", Metered);
  defineData(G, name, Metered);
};
const bytesArg = (bytesPerElement) => (args) => {
  const first = args[0];
  if (!isObjectLike(first)) return toLength(intArg(args, 0)) * bytesPerElement * PER_BYTE;
  try {
    return apply(getOwnDesc(ArrayBuffer.prototype, "byteLength").get, first, []) * PER_BYTE;
  } catch {}
  return Symbol.iterator in first ? 0 : lengthOf(first) * PER_ELEMENT;
};
const typedNames = [
  "Int8Array",
  "Uint8Array",
  "Uint8ClampedArray",
  "Int16Array",
  "Uint16Array",
  "Int32Array",
  "Uint32Array",
  "Float16Array",
  "Float32Array",
  "Float64Array",
];
for (let i = 0; i < typedNames.length; i++) {
  const ctor = G[typedNames[i]];
  meterConstructor(typedNames[i], bytesArg(ctor ? ctor.BYTES_PER_ELEMENT : 8));
}
meterConstructor("ArrayBuffer", bytesArg(1));
// Every error builds a backtrace string over all frames (measured ~5 µs plus
// ~1.4 µs per frame), far more than one step; errors the engine itself throws
// (null.x, ...) cannot be priced here and are covered by stack-depth pricing.
const PER_ERROR = 200;
const errorNames = [
  "Error",
  "TypeError",
  "RangeError",
  "SyntaxError",
  "ReferenceError",
  "EvalError",
  "URIError",
  "AggregateError",
];
for (let i = 0; i < errorNames.length; i++) meterConstructor(errorNames[i], () => PER_ERROR, true);
// Keep the constructor hierarchy the hook sees consistent (TypeError extends Error).
for (let i = 1; i < errorNames.length; i++) R.setPrototypeOf(G[errorNames[i]], G.Error);
const ABP = ArrayBuffer.prototype;
const bufferBytes = (self) => {
  try {
    return apply(getOwnDesc(ABP, "byteLength").get, self, []) * PER_BYTE;
  } catch {
    return 0;
  }
};
meterAll(ABP, ["slice", "transfer", "transferToFixedLength"], bufferBytes);
meter(ABP, "resize", (self, args) => toLength(intArg(args, 0)) * PER_BYTE);
