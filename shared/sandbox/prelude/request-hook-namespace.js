// @ts-check
// Prelude extension for request hooks (shared/llm/hook-extensions.ts): the
// namespace global (`rayrun`) with the host capabilities and the loggers, and
// the alias global (`adf`) that gives the same two capabilities the names
// published examples use. NAMESPACE and ALIAS_NAMESPACE, their names, are
// constants hook-extensions.ts defines ahead of this text
// (definePreludeConstants in index.ts).
const ns = objCreate(null);
ns.lambda = (request) => callHost("lambda", request);
ns.model = (request) => callHost("model", request);
ns.log = makeLoggers(NAMESPACE + ".log.");
objFreeze(ns);
defineProp(G, NAMESPACE, descriptor(ns, false, false, false));
// The very same functions, not wrappers: an alias call is one host call of the
// same name, so policy, approvals, limits, test mocks and logs cannot tell them apart.
const alias = objCreate(null);
alias.sys_lambda = ns.lambda;
alias.model_invoke = ns.model;
objFreeze(alias);
defineProp(G, ALIAS_NAMESPACE, descriptor(alias, false, false, false));
