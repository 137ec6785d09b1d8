import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { loadEsbuild } from "../workers/api/compiler/esbuild";

// Setup files run before each test file; applying is idempotent.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
// Files share a runtime (isolate: false): the first compile in it starts esbuild-wasm, which takes
// seconds. Paid here, once per runtime, it is no test's time (and no test's timeout).
await loadEsbuild();
