// @ts-check
// Prelude part 4a (inside the built-ins part, after the metered exec: index.ts
// puts it at builtins.js's "// @insert regexp-split.js" line): a
// faster RegExp.prototype[Symbol.split] with the language's exact results.
//
// The specified algorithm tries the separator at every index of the string
// with a sticky copy, and every try is a call of the (metered, so JS)
// RegExp.prototype.exec: splitting 31 characters by /\s+/ took ~150 µs in a
// 2 KB adapter's stage, and the metering made fuel grow with the square of
// the length (8 000 characters used a call's whole budget). When nothing the
// algorithm observes has been changed by hook code, searching forward with a
// global copy finds the same matches at the same indices with one native
// exec per match, as engines' own fast paths do (V8's for unmodified
// regexps); anything else takes the engine's own algorithm. One exec scans
// many indices, so its backtracking still reaches the regex polls (../call/fuel.ts),
// and the metered Symbol.split charges the scan up front.

const nativeSplit = RP[Symbol.split];
const regExpFlags = getOwnDesc(RP, "flags").get;
// What the algorithm reads besides internal slots: the constructor and its
// species, the flags getter and the getters it reads, exec and Symbol.match
// (the constructor's IsRegExp). Each must still be ours.
const splitWatch = [
  ["constructor", "value", RegExpCtor],
  ["exec", "value", RP.exec],
];
const flagNames = [
  "flags",
  "hasIndices",
  "global",
  "ignoreCase",
  "multiline",
  "dotAll",
  "unicode",
  "unicodeSets",
  "sticky",
];
for (let i = 0; i < flagNames.length; i++) {
  const desc = getOwnDesc(RP, flagNames[i]);
  if (desc !== undefined) splitWatch[splitWatch.length] = [flagNames[i], "get", desc.get];
}
const speciesGetter = getOwnDesc(RegExpCtor, Symbol.species).get;
let matchMethod;
// Whether the owner has an own property of that key which is a data property
// holding the expected value (field "value") or an accessor whose getter is
// the expected one (field "get"). It makes no descriptor object (one per
// watched property was most of a short split's cost): the own-property test
// comes first, so the getter lookup stops at the owner and asks nothing
// further up its chain, and the value is read only from an own data
// property. No hook code runs.
// Bound once here, from the originals, so a check makes no argument array.
const functionProto = getProto(apply);
const getterOf = apply(functionProto.bind, functionProto.call, [ObjectProto.__lookupGetter__]);
const holds = (owner, key, field, expected) => {
  if (!hasOwn(owner, key)) return false;
  const getter = getterOf(owner, key);
  return field === "get" ? getter === expected : getter === undefined && owner[key] === expected;
};
const unchanged = (rx) => {
  // The internal-slot check first: it runs no proxy trap, and then nothing below can.
  if (!isRegExp(rx) || getProto(rx) !== RP) return false;
  const own = ownKeys(rx);
  if (own.length !== 1 || own[0] !== "lastIndex") return false;
  for (let i = 0; i < splitWatch.length; i++) {
    if (!holds(RP, splitWatch[i][0], splitWatch[i][1], splitWatch[i][2])) return false;
  }
  return (
    holds(RegExpCtor, Symbol.species, "get", speciesGetter) && holds(RP, Symbol.match, "value", matchMethod)
  );
};
// Elements are defined, not assigned, so index setters planted on
// Array.prototype cannot see them (as CreateDataProperty in the algorithm).
const element = objCreate(null);
element.writable = true;
element.enumerable = true;
element.configurable = true;
const define = (array, index, value) => {
  element.value = value;
  defineProp(array, index, element);
  element.value = undefined;
};
// Long texts: the loop runs no hook code (unchanged() saw to that), so what its
// steps paid for the hook's heap and code is refunded whole (../call/fuel.ts).
const SPLIT_MARK_CHARS = 1024;
const fastSplit = (rx, text, lim) => {
  if (text.length <= SPLIT_MARK_CHARS) return splitForward(rx, text, lim);
  const mark = hostWalkMark(true);
  try {
    return splitForward(rx, text, lim);
  } finally {
    hostWalkRefund(mark, -1);
  }
};
const splitForward = (rx, text, lim) => {
  const parts = [];
  if (lim === 0) return parts;
  const flags = apply(regExpFlags, rx, []);
  let copyFlags = "g";
  let unicode = false;
  for (let i = 0; i < flags.length; i++) {
    const flag = flags[i];
    if (flag !== "g" && flag !== "y") copyFlags += flag;
    if (flag === "u" || flag === "v") unicode = true;
  }
  const finder = construct(RegExpCtor, [rx, copyFlags]);
  const size = text.length;
  if (size === 0) {
    if (apply(regExpExec, finder, [text]) === null) define(parts, 0, text);
    return parts;
  }
  let count = 0;
  let last = 0;
  let from = 0;
  while (from < size) {
    finder.lastIndex = from;
    const found = apply(regExpExec, finder, [text]);
    if (found === null) break;
    const at = found.index;
    if (at >= size) break;
    const end = finder.lastIndex < size ? finder.lastIndex : size;
    if (end === last) {
      // An empty match where the last part ended: move on by one character (code point when unicode).
      const code = apply(strCharCodeAt, text, [at]);
      const next = apply(strCharCodeAt, text, [at + 1]);
      from =
        unicode && code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff ? at + 2 : at + 1;
      continue;
    }
    define(parts, count++, apply(strSlice, text, [last, at]));
    if (count === lim) return parts;
    last = end;
    const groups = found.length;
    for (let i = 1; i < groups; i++) {
      define(parts, count++, found[i]);
      if (count === lim) return parts;
    }
    from = last;
  }
  define(parts, count, apply(strSlice, text, [last, size]));
  return parts;
};
defineData(
  RP,
  Symbol.split,
  {
    [Symbol.split](string, limit) {
      if (!isObjectLike(this)) return apply(nativeSplit, this, [string, limit]);
      const text = strOf(string);
      if ((limit === undefined || typeof limit === "number") && unchanged(this)) {
        return fastSplit(this, text, limit === undefined ? 4294967295 : limit >>> 0);
      }
      return apply(nativeSplit, this, [text, limit]);
    },
  }[Symbol.split],
);
