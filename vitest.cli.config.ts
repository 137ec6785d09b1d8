// The CLI is Node code: its tests run in Node against a real local server
// (both Workers under `wrangler dev`, plus the demo upstream), started once.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/cli/**/*.test.ts"],
    globalSetup: ["./test/cli/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // One server is shared: run files one after another.
    fileParallelism: false,
  },
});
