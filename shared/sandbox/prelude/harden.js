// @ts-check
// Prelude part 2: a capability-free, deterministic global environment.
// Code generation from strings is cut at every constructor route, and time and
// randomness come from the call (set through api.setCall, never as globals
// hook code could intercept).

const noCodegen = function () {
  throw new TypeErr("code generation from strings is not available in hooks");
};
const functionPrototypes = [
  getProto(function () {}),
  getProto(async function () {}),
  getProto(function* () {}),
  getProto(async function* () {}),
];
for (let i = 0; i < functionPrototypes.length; i++) {
  defineProp(functionPrototypes[i], "constructor", {
    value: noCodegen,
    writable: false,
    enumerable: false,
    configurable: false,
  });
}
const removedGlobals = [
  "eval",
  "Function",
  "SharedArrayBuffer",
  "Atomics",
  "WeakRef",
  "FinalizationRegistry",
  "BigInt",
  "BigInt64Array",
  "BigUint64Array",
  "InternalError",
];
for (let i = 0; i < removedGlobals.length; i++) deleteProp(G, removedGlobals[i]);

// Deterministic clock: Date.now() and new Date() are the call's calledAt.
let clockMs = 0;
const SandboxDate = function Date(...args) {
  if (new.target === undefined) return apply(dateToString, construct(OrigDate, [clockMs]), []);
  const target = new.target === SandboxDate ? OrigDate : new.target;
  return construct(OrigDate, args.length === 0 ? [clockMs] : args, target);
};
defineProp(SandboxDate, "prototype", {
  value: OrigDate.prototype,
  writable: false,
  enumerable: false,
  configurable: false,
});
defineProp(SandboxDate, "length", { value: 7, writable: false, enumerable: false, configurable: true });
defineData(
  SandboxDate,
  "now",
  {
    now() {
      return clockMs;
    },
  }.now,
);
defineData(SandboxDate, "parse", OrigDate.parse);
defineData(SandboxDate, "UTC", OrigDate.UTC);
defineData(OrigDate.prototype, "constructor", SandboxDate);
defineData(G, "Date", SandboxDate);

// Deterministic randomness: sfc32 seeded from the call's request id.
let rngA = 0,
  rngB = 0,
  rngC = 0,
  rngD = 1;
const random = {
  random() {
    const t = (((rngA + rngB) | 0) + rngD) | 0;
    rngD = (rngD + 1) | 0;
    rngA = rngB ^ (rngB >>> 9);
    rngB = (rngC + (rngC << 3)) | 0;
    rngC = (rngC << 21) | (rngC >>> 11);
    rngC = (rngC + t) | 0;
    return (t >>> 0) / 4294967296;
  },
}.random;
defineData(Math, "random", random);
// The host seeds it (../call/seed.ts): a call's state arrives through api.setCall.
const setRandomState = (a, b, c, d) => {
  rngA = a;
  rngB = b;
  rngC = c;
  rngD = d;
};
