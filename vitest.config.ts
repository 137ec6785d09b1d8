// Every test suite, one vitest project each; the npm scripts pick them with `--project`:
//   workers, workers-whole-database  inside workerd (`npm run test:workers`)
//   node                             `*.node.test.ts` in Node, no server (`npm run test:node`)
//   cli, start, console              in Node against one shared `wrangler dev` (`npm run test:cli`)
//   reliability                      against a `wrangler dev` of its own (`npm run test:reliability`)
// A bare `vitest run` leaves out reliability (see `project` below).
import { availableParallelism } from "node:os";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { exportJWK, generateKeyPair } from "jose";
import { defineConfig } from "vitest/config";
import type { TestProjectInlineConfiguration } from "vitest/config";
import type { VitestPluginContext } from "vitest/node";
import { createProvider } from "./dev/provider/server.ts";
import { createUpstreams } from "./dev/upstream/server.ts";
import { ensureMeteredWasm } from "./scripts/meter-wasm.mjs";

// The sandbox's metered wasm, which the Workers import (`npm ci` writes it; this covers --ignore-scripts).
ensureMeteredWasm();

// Upstream MCP servers for tests: a real official-SDK server, run on the Node
// side and reached through miniflare's outbound service at http://upstream.test/<id>/mcp.
const upstreams = createUpstreams();
// The fake LLM provider (OpenAI- and Anthropic-style echo), likewise at http://provider.test/<id>/v1/….
const provider = createProvider();
// A Cloudflare Access team at https://access.test: its signing keys (JWKS) at the path Access serves
// them; the tests sign Access JWTs with the private half, passed to them as TEST_ACCESS_KEY.
const ACCESS_TEAM = "https://access.test";
const ACCESS_AUD = "test-access-aud";
const accessKeys = await generateKeyPair("RS256", { extractable: true });
const accessPublic = { ...(await exportJWK(accessKeys.publicKey)), kid: "test", alg: "RS256", use: "sig" };
const accessPrivate = { ...(await exportJWK(accessKeys.privateKey)), kid: "test", alg: "RS256" };
const access = (request: Request) =>
  new URL(request.url).pathname === "/cdn-cgi/access/certs"
    ? Response.json({ keys: [accessPublic] })
    : new Response("not found", { status: 404 });
const fakes = new Map<string, (request: Request) => Response | Promise<Response>>([
  ["upstream.test", upstreams],
  ["provider.test", provider],
  ["access.test", access],
]);
const BOOTSTRAP_KEY = "test-bootstrap-key";
/** Tests that read or sweep every workspace in the database: each file gets its own storage. */
const WHOLE_DATABASE = ["test/shared/logs/retention.test.ts", "test/shared/logs/test-run-retention.test.ts"];
const START_TESTS = ["test/cli/start.test.ts"];
// wrangler checks the config's required secrets against the environment.
process.env.RAYRUN_BOOTSTRAP_KEY = BOOTSTRAP_KEY;

type Migrations = Awaited<ReturnType<typeof readD1Migrations>>;

/** A project that runs inside workerd: a plugin instance of its own, so each project gets its own `cloudflare:test` module. */
function workerd(migrations: Migrations, test: NonNullable<TestProjectInlineConfiguration["test"]>) {
  return {
    plugins: [
      // The upstreams run in this process: their task timers must not hold it open after the run
      // (closing twice, once per workerd project, is harmless).
      {
        name: "close-upstreams",
        configureVitest: ({ vitest }: VitestPluginContext) => vitest.onClose(() => upstreams.close()),
      },
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          // LOG_BATCH_MS 0: a test that waits on its execution context finds its run records written
          // without sitting out the batch delay (test/shared/logs/batch.test.ts covers the delay itself).
          bindings: {
            RAYRUN_BOOTSTRAP_KEY: BOOTSTRAP_KEY,
            TEST_MIGRATIONS: migrations,
            LOG_BATCH_MS: "0",
            // Short leases: every deploy, revocation and catalog write waits out the leases
            // isolates hold, and the suite makes thousands of them. The guarantee does not
            // depend on the length (test/shared/lease/ runs it at other lengths too).
            LEASE_MS: "200",
            ACCESS_TEAM_DOMAIN: ACCESS_TEAM,
            ACCESS_AUD,
            TEST_ACCESS_KEY: accessPrivate,
          },
          // Tests exercise the gateway by importing its app, not through this binding.
          outboundService: (request: Request) =>
            fakes.get(new URL(request.url).hostname)?.(request) ??
            new Response("tests never reach the internet", { status: 599 }),
          serviceBindings: {
            GATEWAY: () => new Response("gateway is not bound in tests", { status: 501 }),
          },
        },
      }),
    ],
    test: {
      setupFiles: ["./test/setup.ts"],
      // Vitest's default (one fewer than the cores) runs files one at a time on a
      // 2-core machine; most of a file's time is workerd start-up and I/O, so two
      // workers there halve the suite (measured: 578 s → 314 s for 70 files).
      maxWorkers: Math.max(2, availableParallelism()),
      testTimeout: 30_000,
      ...test,
    },
  } satisfies TestProjectInlineConfiguration;
}

// The CLI's, `npm start`'s and the console's projects: each lists the global setup,
// which starts one dev server for whichever of them run and shares it
// (test/cli/global-setup.ts). Files that read the shared server's fakes (the demo
// provider's received requests) must not overlap: each project runs its files one
// at a time.
const devServerTests = {
  globalSetup: ["./test/cli/global-setup.ts"],
  testTimeout: 60_000,
  hookTimeout: 180_000,
  fileParallelism: false,
};

export default defineConfig(async () => {
  const migrations = await readD1Migrations("./migrations");
  return {
    test: {
      // Without `--project`: every project but the reliability suite, which starts a
      // server of its own and runs for many minutes (`npm run test:reliability`).
      project: ["!reliability"],
      // Projects in one `sequence.groupOrder` must agree on maxWorkers, so the projects
      // with different ones run in groups of their own, workerd first.
      projects: [
        workerd(migrations, {
          name: "workers",
          include: ["test/**/*.test.ts"],
          // The CLI's and the console's tests run in Node against a dev server (their projects
          // below), `*.node.test.ts` in Node without one (the node project).
          exclude: ["test/cli/**", "test/console/**", "test/**/*.node.test.ts", ...WHOLE_DATABASE],
          // Files share a worker's runtime, module graph and storage: loading
          // the api Worker (esbuild's and QuickJS's wasm, Prettier, the MCP
          // SDK) once per worker instead of once per file took the suite from
          // 386 s to 103–113 s here (three runs). Every test works in its own
          // workspace and reads only its rows, so shared storage is safe for
          // all but WHOLE_DATABASE.
          isolate: false,
        }),
        workerd(migrations, { name: "workers-whole-database", include: WHOLE_DATABASE }),
        // Node-side unit tests that need no server and no workerd: `*.node.test.ts` files next
        // to the workerd tests they belong with. The editor declarations' type-check runs here,
        // because the TypeScript compiler reads its lib files from disk.
        {
          test: {
            name: "node",
            include: ["test/**/*.node.test.ts"],
            testTimeout: 60_000,
            sequence: { groupOrder: 1 },
          },
        },
        // The CLI's tests against a real local server (both Workers under `wrangler dev`, plus the
        // demo upstream). `npm start`'s own tests start and stop servers of their own on other
        // ports: beside the CLI's files those start slower than alone, so more time per test.
        {
          test: {
            ...devServerTests,
            name: "cli",
            include: ["test/cli/**/*.test.ts"],
            exclude: START_TESTS,
          },
        },
        { test: { ...devServerTests, name: "start", include: START_TESTS, testTimeout: 120_000 } },
        // The web console in Debian's Chromium (playwright-core) against the same server, in a
        // group of its own: Chromium takes both cores, and two browser files side by side ran
        // past their timeouts.
        {
          test: {
            ...devServerTests,
            name: "console",
            include: ["test/console/**/*.test.ts"],
            testTimeout: 120_000,
            sequence: { groupOrder: 2 },
          },
        },
        // The reliability suite: Node-side files that fuzz, race, break and soak a real
        // `wrangler dev` (both Workers, the demo upstream and the fake LLM provider), started
        // once in its global setup and shared by every file. One server on a 2-core machine:
        // files run one after another, so one file's load never shows up as another file's
        // hang or slow answer.
        {
          test: {
            name: "reliability",
            include: ["reliability/**/*.test.ts"],
            globalSetup: ["./reliability/global-setup.ts"],
            testTimeout: 120_000,
            hookTimeout: 180_000,
            fileParallelism: false,
          },
        },
      ],
    },
  };
});
