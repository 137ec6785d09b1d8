// What the Node tests of the simulated distance need from Node: a dev server of their own
// (scripts/dev-server.mjs) on free ports and throw-away state, and the deploy script's
// refusal of the simulation's vars. The root TypeScript project checks test/ against the
// Workers' types, which have no `node:` modules, so the tests reach them through this file
// (typed by sim-run.d.mts).
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startDevServer } from "../../scripts/dev-server.mjs";

export { devOnlyVars, simulationRefusal } from "../../scripts/deploy.mjs";

async function portTaken(port) {
  const server = createServer();
  try {
    server.listen({ port, exclusive: true });
    await once(server, "listening");
    return false;
  } catch {
    return true;
  } finally {
    if (server.listening) await new Promise((resolve) => server.close(resolve));
  }
}

/**
 * A base port whose dev-server ports (base…base+2 and 1000 above) are free right now: clear of
 * the CLI's, `npm start`'s and the reliability suite's test servers (18000 and up).
 */
async function freeBasePort() {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 14_000 + Math.floor(Math.random() * 2000);
    const ports = [base, base + 1, base + 2, base + 1000, base + 1001, base + 1002];
    let taken = false;
    for (const port of ports) if (await portTaken(port)) taken = true;
    if (!taken) return base;
  }
  throw new Error("no free base port found");
}

/** Starts a dev server with `options` (simHomeRttMs, colos); `stop()` also removes its state. */
export async function startSimServer(options) {
  const dir = mkdtempSync(join(tmpdir(), "rayrun-sim-"));
  try {
    const server = await startDevServer({
      port: await freeBasePort(),
      stateDir: join(dir, "state"),
      devVarsPath: join(dir, ".dev.vars"),
      stdio: "ignore",
      observability: false,
      logLevel: "warn",
      ...options,
    });
    return {
      url: server.url,
      stop: async () => {
        await server.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
