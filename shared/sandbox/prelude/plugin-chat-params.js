// @ts-check
// Prelude extension for plugins' `chat.params` (shared/plugins/chat-params.ts):
// every key of CHAT_PARAM_KEYS (defined ahead of this text by the host) is
// present on the argument the hook sees, `undefined` when the caller left it unset.
const jsonArguments = builders.json;
builders.json = (input) => {
  const args = jsonArguments(input);
  const given = args[0];
  if (typeof given !== "object" || given === null || isArray(given)) return args;
  const params = objCreate(ObjectProto);
  for (let i = 0; i < CHAT_PARAM_KEYS.length; i++) {
    const key = CHAT_PARAM_KEYS[i];
    defineProp(params, key, descriptor(hasOwn(given, key) ? given[key] : undefined, true, true, true));
  }
  const keys = objKeys(given);
  for (let i = 0; i < keys.length; i++) {
    if (!hasOwn(params, keys[i])) defineProp(params, keys[i], descriptor(given[keys[i]], true, true, true));
  }
  defineProp(args, 0, descriptor(params, true, true, true));
  return args;
};
