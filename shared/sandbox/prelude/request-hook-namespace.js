// @ts-check
// Prelude extension for request hooks (shared/llm/hook-extensions.ts): the
// namespace global (`rayrun`) with the host capabilities and the loggers.
// NAMESPACE, its name, is a constant hook-extensions.ts defines ahead of this text
// (definePreludeConstants in index.ts).
const ns = objCreate(null);
ns.lambda = (request) => callHost("lambda", request);
ns.model = (request) => callHost("model", request);
ns.log = makeLoggers(NAMESPACE + ".log.");
objFreeze(ns);
defineProp(G, NAMESPACE, descriptor(ns, false, false, false));
