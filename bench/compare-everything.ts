// Does the gateway change what a client sees of a rich MCP server?
//
//   npx tsx bench/compare-everything.ts [--out FILE] [--port P]
//
// Starts the reference server `@modelcontextprotocol/server-everything` (Streamable
// HTTP, on a free loopback port) and the dev server (both Workers under `wrangler
// dev`, on P..P+2 and P+1000..P+1002, a random free range by default), registers
// the reference server as the one service of a fresh workspace, then talks to
// it with the official SDK client twice — directly, and through `POST /mcp/{ws}`
// with a tools:call key — and prints a markdown table, one row per tool call
// (and per resource, prompt and completion operation), saying whether the
// two answers are the same, followed by every difference in full. `--out FILE`
// also writes both sides' raw records as JSON. Exits 0 whatever differs: only
// a failure of the script itself is an error. Nothing leaves the machine.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Prompt, Tool } from "@modelcontextprotocol/sdk/types.js";
import { freePort, startEverything } from "./compare-everything/children";
import { compare, render, type Compared } from "./compare-everything/compare";
import { callsFor, COMPLETIONS, promptArguments, TEMPLATE_RESOURCE } from "./compare-everything/plan";
import { Side } from "./compare-everything/side";
import { registerEverything } from "./compare-everything/workspace";
import { startDevServer, type DevServer, type DevServerOptions } from "./dev-server";
import { option } from "./options";

const outFile = option("out", "");
const fixedPort = option("port", "");
/** server-everything asks a roots-capable client for its roots 350 ms after `initialized`. */
const SESSION_SETTLE_MS = 1500;

const toolNames = (side: Side): string[] => side.tools.map((tool) => tool.name).toSorted();

const note = (message: string): void => {
  console.error(`compare-everything: ${message}`);
};

/** Undone in reverse order, on success, failure and interruption alike. */
const cleanups: (() => Promise<void>)[] = [];
/** What can still be stopped synchronously if the process exits without them. */
const kills: (() => void)[] = [];
const interrupted = new AbortController();
/** The dev server's start while it runs: stopped by the abort, it stops what it started before it settles. */
let starting: Promise<unknown> | null = null;

async function cleanUp(): Promise<void> {
  for (const cleanup of cleanups.splice(0).toReversed()) {
    await cleanup().catch((error: unknown) => note(`cleanup failed: ${String(error)}`));
  }
}

async function cleanUpAfterStart(): Promise<void> {
  await starting?.catch(() => undefined);
  await cleanUp();
}

process.on("exit", () => {
  for (const kill of kills) kill();
});
// Kept, not once: tsx relays a signal the script's whole process group already got, and a
// second one with no listener left would end the process before its cleanup.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (interrupted.signal.aborted) return;
    note(`${signal}: stopping`);
    interrupted.abort();
    void cleanUpAfterStart().finally(() => process.exit(signal === "SIGINT" ? 130 : 143));
  });
}

async function startGateway(stateDir: string): Promise<DevServer> {
  for (let attempt = 1; ; attempt++) {
    // Away from `npm start` (8787), the CLI tests (18000–19999) and the reliability suite (21000–22999).
    const port = fixedPort === "" ? 24_000 + Math.floor(Math.random() * 2000) : Number(fixedPort);
    // dev-server.mjs takes an abort signal while it starts; its typed options predate that.
    const options: DevServerOptions & { signal: AbortSignal } = {
      port,
      stateDir,
      devVarsPath: join(stateDir, ".dev.vars"),
      stdio: process.env.BENCH_STDIO === "inherit" ? "inherit" : "ignore",
      observability: false,
      logLevel: "warn",
      signal: interrupted.signal,
    };
    const start = startDevServer(options);
    starting = start;
    try {
      return await start;
    } catch (error) {
      const taken = error instanceof Error && error.name === "PortInUseError";
      if (!taken || fixedPort !== "" || attempt >= 3) throw error;
    } finally {
      starting = null;
    }
  }
}

/** The same operation on both sides, one after the other. */
async function onBoth(
  label: string,
  direct: Side,
  gateway: Side,
  work: (side: Side) => Promise<unknown>,
): Promise<Extract<Compared, { kind: "op" }>> {
  interrupted.signal.throwIfAborted();
  return {
    kind: "op",
    label,
    direct: await direct.op(() => work(direct)),
    gateway: await gateway.op(() => work(gateway)),
  };
}

async function compareResources(direct: Side, gateway: Side): Promise<Compared[]> {
  const items: Compared[] = [];
  const listed = await onBoth("resources/list", direct, gateway, (s) => s.client.listResources());
  items.push(listed);
  items.push(
    await onBoth("resources/templates/list", direct, gateway, (s) => s.client.listResourceTemplates()),
  );
  const first = listed.direct.result as { resources?: { uri: string }[] } | undefined;
  for (const uri of [first?.resources?.[0]?.uri, TEMPLATE_RESOURCE]) {
    if (uri === undefined) continue;
    items.push(await onBoth(`resources/read ${uri}`, direct, gateway, (s) => s.client.readResource({ uri })));
  }
  return items;
}

async function comparePrompts(direct: Side, gateway: Side): Promise<Compared[]> {
  const listed = await onBoth("prompts/list", direct, gateway, (s) => s.client.listPrompts());
  const items: Compared[] = [listed];
  const prompts = (listed.direct.result as { prompts?: Prompt[] } | undefined)?.prompts ?? [];
  for (const prompt of prompts) {
    const args = promptArguments(prompt);
    items.push(
      await onBoth(`prompts/get ${prompt.name}`, direct, gateway, (s) =>
        s.client.getPrompt({ name: prompt.name, arguments: args }),
      ),
    );
  }
  return items;
}

type Which = "direct" | "gateway";
type Sides = Record<Which, Side>;

async function compareTools(
  sides: Sides,
  fresh: (which: Which) => Promise<Side>,
  publicNames: Map<string, string>,
): Promise<Compared[]> {
  const upstreamNames = new Map([...publicNames].map(([upstream, name]) => [name, upstream]));
  // Every tool either side lists, by upstream name: one side's missing tool is called there anyway.
  const tools = new Map<string, Tool>();
  for (const tool of sides.direct.tools) tools.set(tool.name, tool);
  for (const tool of sides.gateway.tools) {
    const upstream = upstreamNames.get(tool.name) ?? tool.name;
    if (!tools.has(upstream)) tools.set(upstream, { ...tool, name: upstream });
  }
  const items: Compared[] = [];
  for (const tool of tools.values()) {
    for (const call of callsFor(tool)) {
      interrupted.signal.throwIfAborted();
      note(`calling ${call.label}`);
      const run = async (which: Which, name: string) => {
        if (!call.freshSessions) return sides[which].callTool(name, call.arguments);
        // Closed before the other side's call: server-everything keeps some state per process, not per session.
        const side = await fresh(which);
        await side.listTools();
        try {
          return await side.callTool(name, call.arguments);
        } finally {
          await side.close();
        }
      };
      items.push({
        kind: "call",
        label: call.label,
        direct: await run("direct", call.tool),
        gateway: await run("gateway", publicNames.get(call.tool) ?? call.tool),
      });
    }
  }
  return items;
}

async function main(): Promise<void> {
  const everything = await startEverything(await freePort());
  kills.push(everything.kill);
  cleanups.push(everything.stop);
  note(`server-everything on ${everything.url}`);

  const stateDir = mkdtempSync(join(tmpdir(), "rayrun-compare-everything-"));
  cleanups.push(async () => rmSync(stateDir, { recursive: true, force: true }));
  note("starting the gateway under wrangler dev (about a minute)");
  const server = await startGateway(stateDir);
  // stop() resolves once wrangler and workerd are gone (the typed signature predates that).
  cleanups.push(async () => {
    await Promise.resolve<unknown>(server.stop());
  });
  note(`gateway on ${server.url}`);

  const workspace = await registerEverything(server.url, server.key, everything.url);
  const allSides: Side[] = [];
  /** A client of either side, connected and past the server's post-initialize requests. */
  const connect = async (which: Which): Promise<Side> => {
    const side =
      which === "direct"
        ? await Side.connect("direct", everything.url)
        : await Side.connect("gateway", `${server.url}/mcp/${workspace.uid}`, {
            authorization: `Bearer ${workspace.callKey}`,
          });
    cleanups.push(() => side.close());
    allSides.push(side);
    await sleep(SESSION_SETTLE_MS);
    return side;
  };
  const direct = await connect("direct");
  const gateway = await connect("gateway");

  const compared: Compared[] = [];
  const listed = { direct: await direct.listTools(), gateway: await gateway.listTools() };
  if (listed.direct.error === undefined && listed.gateway.error === undefined) {
    compared.push({
      kind: "names",
      label: "tools/list (names)",
      direct: toolNames(direct),
      gateway: toolNames(gateway),
    });
  } else compared.push({ kind: "op", label: "tools/list", ...listed });

  const offered = direct.client.getServerCapabilities() ?? {};
  if (offered.resources) compared.push(...(await compareResources(direct, gateway)));
  else note("the server offers no resources");
  if (offered.prompts) compared.push(...(await comparePrompts(direct, gateway)));
  else note("the server offers no prompts");
  if (offered.completions) {
    for (const { label, params } of COMPLETIONS) {
      compared.push(await onBoth(label, direct, gateway, (s) => s.client.complete(params)));
    }
  } else note("the server offers no completions");

  compared.push(...(await compareTools({ direct, gateway }, connect, workspace.publicNames)));
  compared.push({
    kind: "observed",
    label: "session (outside any operation)",
    direct: direct.session,
    gateway: gateway.session,
  });

  interrupted.signal.throwIfAborted();
  console.log(render(compared.map(compare)));
  for (const side of allSides) {
    if (side.clientErrors.length > 0) note(`${side.label} client errors: ${side.clientErrors.join(" | ")}`);
  }
  if (outFile !== "") {
    const raw = {
      compared,
      clientErrors: allSides.map((side) => ({ side: side.label, errors: side.clientErrors })),
      tools: { direct: direct.tools, gateway: gateway.tools },
    };
    writeFileSync(outFile, `${JSON.stringify(raw, null, 2)}\n`);
    note(`raw records written to ${outFile}`);
  }
}

try {
  await main();
  await cleanUp();
} catch (error) {
  // An interrupted run fails on the way; the signal handler cleans up and exits.
  if (!interrupted.signal.aborted) {
    console.error(error);
    await cleanUp();
    process.exit(1);
  }
}
