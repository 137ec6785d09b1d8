import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { ensureCliBundle } from "../../scripts/build-cli.mjs";
// @ts-expect-error -- plain ESM script without type declarations
import { startDevServer } from "../../scripts/dev-server.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    serverUrl: string;
    upstreamUrl: string;
    /** The fake LLM provider's root (dev/provider): `<providerUrl>/<id>/…` is one provider. */
    providerUrl: string;
    bootstrapKey: string;
  }
}

interface DevServer {
  url: string;
  upstreamUrl: string;
  providerUrl: string;
  key: string;
  stop(): void;
}

interface Shared {
  started: Promise<{ server: DevServer; dir: string }>;
  users: number;
}

// The cli, start and console projects each list this file, and vitest runs it once
// for each of them that has files in the run, each time through that project's own
// module runner: the server is kept on the process, so the first project starts it,
// the others share it, and the last teardown stops it. One dev server instead of three.
const SHARED = Symbol.for("rayrun.test.cli-dev-server");
const holder = globalThis as { [SHARED]?: Shared };

async function start() {
  const dir = mkdtempSync(join(tmpdir(), "rayrun-cli-"));
  // A port of its own so a developer's `npm start` on 8787 is left alone.
  const port = 18_000 + Math.floor(Math.random() * 2000);
  const server = (await startDevServer({
    port,
    stateDir: join(dir, "state"),
    devVarsPath: join(dir, ".dev.vars"),
    stdio: "ignore",
    observability: false,
    logLevel: "warn",
  })) as DevServer;
  return { server, dir };
}

export default async function setup(project: TestProject) {
  // The CLI's tests run its bundle, built from the sources as they are now.
  await ensureCliBundle();
  const shared = (holder[SHARED] ??= { started: start(), users: 0 });
  shared.users += 1;
  const { server, dir } = await shared.started;
  project.provide("serverUrl", server.url);
  project.provide("upstreamUrl", server.upstreamUrl);
  project.provide("providerUrl", server.providerUrl);
  project.provide("bootstrapKey", server.key);
  return () => {
    shared.users -= 1;
    if (shared.users > 0) return;
    delete holder[SHARED];
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
