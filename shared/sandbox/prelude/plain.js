// @ts-check
// Prelude part 4b (after the built-ins): what the bridge can read without
// running hook code. A serialisation walk that runs no hook code may run as a
// pure region (its steps do not pay for the hook's heap, ../call/fuel.ts); these
// registries let it tell, without running hook code, when that no longer
// holds: every proxy the hook makes, and every array the hook defined
// properties on (the only ways an array element can run code when read; an
// object's accessors are found per key with __lookupGetter__).

const OrigProxy = G.Proxy;
const proxyRevocable = OrigProxy.revocable;
const proxies = new WeakSetCtor();
const noteProxy = (proxy) => {
  apply(weakSetAdd, proxies, [proxy]);
  return proxy;
};
const SandboxProxy = function Proxy(target, handler) {
  if (new.target === undefined) throw new TypeErr("Constructor Proxy requires 'new'");
  return noteProxy(construct(OrigProxy, [target, handler]));
};
defineProp(SandboxProxy, "length", { value: 2, writable: false, enumerable: false, configurable: true });
defineData(
  SandboxProxy,
  "revocable",
  {
    revocable(target, handler) {
      const pair = apply(proxyRevocable, undefined, [target, handler]);
      noteProxy(pair.proxy);
      return pair;
    },
  }.revocable,
);
defineData(G, "Proxy", SandboxProxy);

const definedArrays = new WeakSetCtor();
const watchDefiner = (owner, key, targetOf) => {
  const original = owner[key];
  if (typeof original !== "function") return;
  const wrapper = {
    [key](...args) {
      const target = targetOf(this, args);
      if (isArray(target)) apply(weakSetAdd, definedArrays, [target]);
      return apply(original, this, args);
    },
  }[key];
  defineProp(wrapper, "length", {
    value: original.length,
    writable: false,
    enumerable: false,
    configurable: true,
  });
  defineData(owner, key, wrapper);
};
const firstArgument = (self, args) => args[0];
watchDefiner(O, "defineProperty", firstArgument);
watchDefiner(O, "defineProperties", firstArgument);
watchDefiner(R, "defineProperty", firstArgument);
const receiver = (self) => self;
watchDefiner(ObjectProto, "__defineGetter__", receiver);
watchDefiner(ObjectProto, "__defineSetter__", receiver);

// True when reading the item's own properties or elements may run hook code.
const mayRunHookCode = (item) =>
  apply(weakSetHas, proxies, [item]) ||
  (isArray(item) && (getProto(item) !== ArrayProto || apply(weakSetHas, definedArrays, [item])));
