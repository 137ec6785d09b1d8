// @ts-check
// Prelude extension for workspace modules (module-exports.ts): reads the
// module's export shape without trusting hook-built objects: own
// descriptors only, records built with defineProp (hook code may have planted
// setters on Array.prototype), the JSON produced by the bridge's strict walk.
// api.inspectModule returns "E" + problem or "J" + JSON of ModuleShape.

const typeName = (value) => (value === null ? "null" : isArray(value) ? "array" : typeof value);
const pushRecord = (list, record) => defineProp(list, list.length, descriptor(record, true, true, true));
api.inspectModule = (maxChars) => {
  const exportsObject = G.__rayrunModule;
  if (!isObjectLike(exportsObject)) return "Ethe compiled module defines no exports";
  const named = [];
  /** @type {any} */
  let shape = null;
  const keys = ownKeys(exportsObject);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (typeof key !== "string" || key === "__esModule") continue;
    const desc = getOwnDesc(exportsObject, key);
    if (desc === undefined || !desc.enumerable) continue;
    const value = exportsObject[key];
    if (key !== "default") {
      const entry = objCreate(null);
      entry.name = key;
      entry.type = typeName(value);
      pushRecord(named, entry);
      continue;
    }
    shape = objCreate(null);
    shape.type = typeName(value);
    const proto = shape.type === "object" ? getProto(value) : undefined;
    shape.plainObject = shape.type === "object" && (proto === ObjectProto || proto === null);
    const members = [];
    if (shape.plainObject) {
      const own = ownKeys(value);
      for (let j = 0; j < own.length; j++) {
        const member = getOwnDesc(value, own[j]);
        const entry = objCreate(null);
        entry.key = typeof own[j] === "string" ? own[j] : null;
        entry.type =
          member === undefined ? "undefined" : hasOwn(member, "value") ? typeName(member.value) : "accessor";
        pushRecord(members, entry);
      }
    }
    shape.members = members;
  }
  const record = objCreate(null);
  record.named = named;
  record.default = shape;
  const text = toJsonText(record, "the module's exports", maxChars);
  return text === "L" ? "Ethe module has too many exports to inspect" : text;
};
