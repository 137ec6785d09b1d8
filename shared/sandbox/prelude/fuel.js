// @ts-check
// Prelude part 3: the sandbox side of fuel. Built-ins whose work grows with
// their input are charged before they run (or, when only the output tells the
// size, right after, so at most one bounded call overshoots). Fuel is leased
// from the host in chunks so cheap calls never leave JS.

let leased = 0;
const hostLease = host.lease;
// Loops of our own over hook data (the serialisation walk, splitting) report
// the steps they took; the host refunds what those paid for the hook's heap
// and code, since each does constant work (FuelMeter.markWalk in ../call/fuel.ts).
const hostWalkMark = host.walkMark;
const hostWalkRefund = host.walkRefund;
// A metered built-in that made a large string or array grew the heap in one
// step: the host prices the steps after it at once (FuelMeter.retune).
const hostRetune = host.retune;
const RETUNE_LENGTH = 65536;
const charge = (units) => {
  if (!(units > 0)) return;
  if (units <= leased) {
    leased -= units;
    return;
  }
  const need = units - leased;
  leased = 0;
  const granted = hostLease(need);
  if (granted < 0) throw new RangeErr("hook ran out of fuel");
  leased = granted - need;
};

// Prices in fuel units (1 unit is one interpreter step); see FUEL in ../call/fuel.ts
// and the bench for how they were calibrated.
const PER_CHAR = 1 / 32; // copying or scanning one character
const PER_CASE_CHAR = 1 / 2; // case mapping / normalising one character
const PER_COMPARE = 1 / 48; // one character comparison of a naive search
const PER_ELEMENT = 1 / 8; // moving or visiting one element in C
const PER_CONVERT = 1; // converting one element to a string, one key
const PER_BYTE = 1 / 256; // zero-filling or copying one byte of a buffer
const PER_PARSE_CHAR = 1 / 4; // JSON / URI parsing per character

const MAX_LENGTH = 9007199254740991;
const toLength = (value) => {
  const n = +value;
  if (!(n > 0)) return 0;
  return n >= MAX_LENGTH ? MAX_LENGTH : mathFloor(n);
};
// An array-like whose length is an accessor could report a small length to the
// meter and a huge one to the built-in; such objects are refused.
const lengthOf = (value) => {
  if (value === null || value === undefined) return 0;
  if (typeof value === "string") return value.length;
  if (typeof value !== "object" && typeof value !== "function") return 0;
  if (isArray(value)) return toLength(value.length);
  const own = getOwnDesc(value, "length");
  if (own !== undefined && !hasOwn(own, "value")) {
    throw new TypeErr("array-likes with an accessor length are not supported in hooks");
  }
  return toLength(value.length);
};
const strOf = (value) => (typeof value === "string" ? value : toStr(value));
const thisString = (value) => {
  if (value === null || value === undefined)
    throw new TypeErr("String.prototype method called on null or undefined");
  return strOf(value);
};
const regExpSource = getOwnDesc(RegExpCtor.prototype, "source").get;
// instanceof could be steered by hook code; the internal-slot check cannot.
const isRegExp = (value) => {
  if (!isObjectLike(value) || value === RegExpCtor.prototype) return false;
  try {
    apply(regExpSource, value, []);
    return true;
  } catch {
    return false;
  }
};

const wrappers = new WeakMapCtor();
// Replace target[key] with a metered copy that calls the captured original.
// 'price(self, args)' returns the units to charge first and may replace args
// with primitives so the original sees exactly what was priced; 'after'
// prices the result when only the output reveals the work.
const meter = (target, key, price, after, coerceThis) => {
  const desc = getOwnDesc(target, key);
  if (desc === undefined || typeof desc.value !== "function") return;
  const original = desc.value;
  let wrapper = apply(weakMapGet, wrappers, [original]);
  if (wrapper === undefined) {
    // A method named by its key: no constructor, no prototype, and the
    // built-in's name ("[Symbol.split]" for symbols) without a defineProperty
    // per wrapper (the prelude runs in every fresh context).
    wrapper = {
      [key](...args) {
        const self = coerceThis === undefined ? this : coerceThis(this);
        charge(1 + price(self, args));
        const result = apply(original, self, args);
        if (after !== undefined) charge(after(result, self, args));
        if ((typeof result === "string" || isArray(result)) && result.length > RETUNE_LENGTH) hostRetune();
        return result;
      },
    }[key];
    const name = original.name;
    if (wrapper.name !== name) defineProp(wrapper, "name", { value: name, configurable: true });
    defineProp(wrapper, "length", { value: original.length, configurable: true });
    apply(weakMapSet, wrappers, [original, wrapper]);
  }
  // Built-in methods are writable, configurable data properties: assignment
  // keeps their attributes and costs less than a descriptor.
  if (desc.writable && desc.configurable) target[key] = wrapper;
  else
    defineProp(target, key, {
      value: wrapper,
      writable: desc.writable,
      enumerable: desc.enumerable,
      configurable: desc.configurable,
    });
};
const meterAll = (target, keys, price, after, coerceThis) => {
  for (let i = 0; i < keys.length; i++) meter(target, keys[i], price, after, coerceThis);
};
const free = () => 0;
const resultLength = (per) => (result) => lengthOf(result) * per;
const ownKeyCount = (value) => (isObjectLike(value) ? ownKeys(value).length : 0);
