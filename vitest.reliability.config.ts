// The reliability suite: Node-side vitest files that fuzz, race, break and soak
// a real `wrangler dev` (both Workers, the demo upstream and the fake LLM
// provider), started once in globalSetup and shared by every file.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    name: "reliability",
    include: ["reliability/**/*.test.ts"],
    globalSetup: ["./reliability/global-setup.ts"],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // One server on a 2-core machine: files run one after another, so one
    // file's load never shows up as another file's hang or slow answer.
    fileParallelism: false,
  },
});
