#!/usr/bin/env node
// `rayrun`, the package's bin: runs the CLI's bundle, cli/dist/rayrun.mjs, which
// `npm install` builds from the TypeScript under cli/ (scripts/build-cli.mjs), and
// builds it first when it is missing or older than a file it was built from.
// Plain JavaScript, so the Node 20 of an older machine runs it as well as Node 24.
import { fileURLToPath } from "node:url";

const [major = 0] = process.versions.node.split(".").map(Number);
if (major < 20) {
  process.stderr.write(`rayrun: Node ${process.versions.node} is too old; the CLI needs Node 20 or newer\n`);
  process.exit(1);
}

// Node 22.1+ keeps V8's compiled code of the bundle on disk: later calls skip compiling it.
const { enableCompileCache } = await import("node:module");
enableCompileCache?.();

const { BUNDLE, ensureCliBundle } = await import("../scripts/build-cli.mjs");
try {
  await ensureCliBundle();
} catch (error) {
  const checkout = fileURLToPath(new URL("..", import.meta.url));
  process.stderr.write(
    `rayrun: cannot build the CLI (${error instanceof Error ? error.message.split("\n")[0] : String(error)}); run \`npm install\` in ${checkout}\n`,
  );
  const { existsSync } = await import("node:fs");
  if (!existsSync(BUNDLE)) process.exit(1);
}
await import("./dist/rayrun.mjs");
