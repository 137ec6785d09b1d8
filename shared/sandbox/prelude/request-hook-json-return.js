// @ts-check
// Prelude extension for request hooks and nested lambdas (shared/llm/hook-extensions.ts):
// return values follow JSON.stringify for object members whose value is
// `undefined`: they are absent, so the documented contract example
// `{ system: request.system, … }` works for a request without `system`.
// Everything else that is not JSON (functions, NaN, ±Infinity, `undefined`
// array elements, holes, class instances, cycles) is still refused by the
// bridge's strict serializer. The copy is made with defineProp on fresh
// objects (no setters planted on prototypes run, `__proto__` is a plain key)
// and stops early — handing the rest to the serializer to refuse — once it
// is deeper than the serializer allows or has more nodes than the output has
// characters.

const pruneUndefinedMembers = (root, maxChars) => {
  let nodes = 0;
  const copy = (value, depth) => {
    nodes++;
    if (typeof value !== "object" || value === null || depth > 64 || nodes > maxChars) return value;
    if (isArray(value)) {
      const length = value.length;
      charge(length * PER_ELEMENT);
      const out = [];
      for (let i = 0; i < length; i++) {
        if (!hasOwn(value, i)) return value;
        defineProp(out, i, descriptor(copy(value[i], depth + 1), true, true, true));
        if (nodes > maxChars) return value;
      }
      return out;
    }
    const proto = getProto(value);
    if (proto !== ObjectProto && proto !== null) return value;
    const keys = objKeys(value);
    charge(keys.length * PER_CONVERT);
    const out = objCreate(ObjectProto);
    for (let i = 0; i < keys.length; i++) {
      const member = value[keys[i]];
      if (member === undefined) continue;
      defineProp(out, keys[i], descriptor(copy(member, depth + 1), true, true, true));
      if (nodes > maxChars) return value;
    }
    return out;
  };
  return copy(root, 0);
};
api.serialize = (value, label, maxChars) =>
  toJsonText(pruneUndefinedMembers(value, maxChars), label, maxChars);
