// Node-side unit tests that need no server and no workerd: `*.node.test.ts`
// files next to the workerd tests they belong with (vitest.config.ts leaves
// them out). The editor declarations' type-check runs here, because the
// TypeScript compiler reads its lib files from disk.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    name: "node",
    include: ["test/**/*.node.test.ts"],
    testTimeout: 60_000,
  },
});
