// @ts-check
// Prelude part 1: intrinsics captured before any hook code runs. Everything the
// prelude does later goes through these, so hooks that tamper with
// prototypes, Reflect or JSON cannot redirect our own checks.

const G = globalThis;
const R = Reflect;
const apply = R.apply;
const construct = R.construct;
const ownKeys = R.ownKeys;
// Reflection over built-ins (whose descriptors and prototypes the prelude
// knows) and over hook values (which it checks as it goes): typed loosely.
/** @type {(target: object, key: PropertyKey) => any} */
const getOwnDesc = R.getOwnPropertyDescriptor;
const defineProp = R.defineProperty;
const deleteProp = R.deleteProperty;
/** @type {(target: object) => any} */
const getProto = R.getPrototypeOf;
const O = Object;
const hasOwn = O.hasOwn;
const objCreate = O.create;
const objFreeze = O.freeze;
const objIsFrozen = O.isFrozen;
const objKeys = O.keys;
const ObjectProto = O.prototype;
const ArrayProto = Array.prototype;
const isArray = Array.isArray;
const toStr = String;
const isFiniteNumber = Number.isFinite;
const mathFloor = Math.floor;
const mathLog2 = Math.log2;
const mathMax = Math.max;
const mathMin = Math.min;
const jsonStringify = JSON.stringify;
const jsonParse = JSON.parse;
const isError = Error.isError;
const TypeErr = TypeError;
const RangeErr = RangeError;
const InternalErrorProto = G.InternalError.prototype;
const SyntaxErrorProto = SyntaxError.prototype;
const RegExpCtor = RegExp;
const strSlice = String.prototype.slice;
const strCharCodeAt = String.prototype.charCodeAt;
const arrayJoin = Array.prototype.join;
const WeakSetCtor = WeakSet;
const weakSetHas = WeakSet.prototype.has;
const weakSetAdd = WeakSet.prototype.add;
const WeakMapCtor = WeakMap;
const weakMapGet = WeakMap.prototype.get;
const weakMapSet = WeakMap.prototype.set;
const promiseThen = Promise.prototype.then;
const PromiseCtor = Promise;
const OrigDate = Date;
const dateToString = Date.prototype.toString;
// Descriptors are null-prototype objects: a literal {value} would inherit
// get/set/writable that hook code may have planted on Object.prototype.
const descriptor = (value, enumerable, writable, configurable) => {
  const desc = objCreate(null);
  desc.value = value;
  desc.enumerable = enumerable;
  desc.writable = writable;
  desc.configurable = configurable;
  return desc;
};
const defineData = (target, key, value) =>
  defineProp(target, key, { value, writable: true, enumerable: false, configurable: true });
const isObjectLike = (value) => (typeof value === "object" && value !== null) || typeof value === "function";
