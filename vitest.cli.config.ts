// Node-side tests. The CLI is Node code: its tests run in Node against a real
// local server (both Workers under `wrangler dev`, plus the demo upstream),
// started once. `npm start`'s own tests start and stop servers of their own, so
// they are a project without that shared server.
import { defineConfig } from "vitest/config";

const START_TESTS = ["test/cli/start.test.ts"];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // Every file runs wrangler and workerd on a 2-core machine: one file at a time.
    fileParallelism: false,
    projects: [
      {
        extends: true,
        test: {
          name: "cli",
          include: ["test/cli/**/*.test.ts"],
          exclude: START_TESTS,
          globalSetup: ["./test/cli/global-setup.ts"],
        },
      },
      { extends: true, test: { name: "start", include: START_TESTS } },
    ],
  },
});
