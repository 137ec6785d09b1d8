// Node-side tests against a real local server (both Workers under `wrangler dev`,
// plus the demo upstream), started once by the root's global setup: the CLI's
// tests, and the web console's in Chromium. `npm start`'s own tests start and
// stop servers of their own on other ports.
import { defineConfig } from "vitest/config";

const START_TESTS = ["test/cli/start.test.ts"];

// Projects do not extend the root: a project that did would inherit its
// globalSetup and start a dev server of its own (three starts instead of one).
const shared = {
  testTimeout: 60_000,
  hookTimeout: 180_000,
  // Files mostly wait on the shared server and Chromium (about a third of two
  // cores busy when run one at a time), so two run at once.
  fileParallelism: true,
  maxWorkers: 2,
};

export default defineConfig({
  test: {
    ...shared,
    globalSetup: ["./test/cli/global-setup.ts"],
    projects: [
      { test: { ...shared, name: "cli", include: ["test/cli/**/*.test.ts"], exclude: START_TESTS } },
      // The web console in Debian's Chromium (playwright-core) against the same server.
      { test: { ...shared, name: "console", include: ["test/console/**/*.test.ts"], testTimeout: 120_000 } },
      { test: { ...shared, name: "start", include: START_TESTS } },
    ],
  },
});
