// Node-side tests against a real local server (both Workers under `wrangler dev`,
// plus the demo upstream), started once: the CLI's tests, and the web console's in
// Chromium. `npm start`'s own tests start and stop servers of their own on other ports.
import { defineConfig } from "vitest/config";

const START_TESTS = ["test/cli/start.test.ts"];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // Every file runs wrangler and workerd on a 2-core machine: one file at a time.
    fileParallelism: false,
    // One dev server for the CLI's and the console's tests (started once, a minute of start-up saved).
    globalSetup: ["./test/cli/global-setup.ts"],
    projects: [
      {
        extends: true,
        test: { name: "cli", include: ["test/cli/**/*.test.ts"], exclude: START_TESTS },
      },
      // The web console in Debian's Chromium (playwright-core) against the same server.
      {
        extends: true,
        test: { name: "console", include: ["test/console/**/*.test.ts"], testTimeout: 120_000 },
      },
      { extends: true, test: { name: "start", include: START_TESTS } },
    ],
  },
});
