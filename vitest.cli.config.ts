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
  // Files that read the shared server's fakes (the demo provider's received
  // requests) must not overlap: each project runs its files one at a time.
  fileParallelism: false,
};

// `npm start`'s file runs servers of its own, so it overlaps the CLI's files
// (group 0). The console's files run last, on their own (group 1): Chromium
// takes both cores, and two browser files side by side ran past their timeouts.
export default defineConfig({
  test: {
    ...shared,
    maxWorkers: 2,
    globalSetup: ["./test/cli/global-setup.ts"],
    projects: [
      {
        test: {
          ...shared,
          sequence: { groupOrder: 0 },
          name: "cli",
          include: ["test/cli/**/*.test.ts"],
          exclude: START_TESTS,
        },
      },
      // Beside the CLI's files its servers start slower than alone: more time per test.
      {
        test: {
          ...shared,
          sequence: { groupOrder: 0 },
          name: "start",
          include: START_TESTS,
          testTimeout: 120_000,
        },
      },
      // The web console in Debian's Chromium (playwright-core) against the same server.
      {
        test: {
          ...shared,
          sequence: { groupOrder: 1 },
          name: "console",
          include: ["test/console/**/*.test.ts"],
          testTimeout: 120_000,
        },
      },
    ],
  },
});
