#!/usr/bin/env node
// `npm start`: local D1 migrations, a bootstrap key in .dev.vars, both Workers
// on one port (PORT, default 8787) and the demo upstream MCP server and demo
// LLM provider (echo) beside them. RAYRUN_STATE_DIR and RAYRUN_DEV_VARS move the
// local state and the key file (tests use throw-away ones). SIM_HOME_RTT_MS and SIM_COLOS
// simulate the distance to a workspace's home (docs/architecture.md, "Distance, simulated").
// It prints one line per step, then the banner, then what the Workers log (wrangler's request
// lines); `npm start -- --verbose` also shows everything wrangler and Vite print while starting.
import { PortInUseError, StateInUseError, startDevServer } from "./dev-server.mjs";
import { seedDemo } from "./seed-demo.mjs";

const options = process.argv.slice(2);
const verbose = options.includes("--verbose");
const unknown = options.filter((option) => option !== "--verbose");
if (unknown.length > 0) {
  console.error(
    `npm start: unknown option ${unknown.join(" ")}; the only one is --verbose (npm start -- --verbose)`,
  );
  process.exit(2);
}

const port = Number(process.env.PORT ?? 8787);
const stateDir = process.env.RAYRUN_STATE_DIR ?? ".wrangler/state";
const devVarsPath = process.env.RAYRUN_DEV_VARS ?? ".dev.vars";
/** A number from the environment, or `fallback` when it is unset or empty (startDevServer checks it). */
const numberFromEnv = (name, fallback) => (process.env[name]?.trim() ? Number(process.env[name]) : fallback);
const simHomeRttMs = numberFromEnv("SIM_HOME_RTT_MS", undefined);
const colos = numberFromEnv("SIM_COLOS", 1);

/** What each step's line says once it is done. */
const DONE = {
  console: "web console built",
  migrations: "local D1 migrations applied",
  workers: "API and gateway answering (wrangler dev)",
  upstream: "demo upstream MCP server answering",
  provider: "demo LLM provider answering",
  seed: "demo workspace seeded",
};
/** The processes that keep running: what they print once the banner is out is shown as it comes. */
const SERVERS = new Set(["workers", "upstream", "provider"]);
const began = Date.now();
const seconds = () => `${((Date.now() - began) / 1000).toFixed(1)} s`;

/**
 * Without --verbose, each step's output is kept rather than shown: printed if the step fails, and
 * for the servers passed through from the banner on. Kept to its last lines, which say why it failed.
 */
const kept = new Map();
const KEEP_CHARS = 64 * 1024;
const KEEP_LINES = 60;
let following = false;
function onOutput(step, chunk, stream) {
  if (following && SERVERS.has(step)) {
    (stream === "stderr" ? process.stderr : process.stdout).write(chunk);
    return;
  }
  const text = (kept.get(step) ?? "") + chunk.toString();
  kept.set(step, text.slice(-KEEP_CHARS));
}

/** A failed step's kept output, for the lines after the error. */
function keptOutput(step) {
  const lines = (kept.get(step) ?? "")
    .split(/\r?\n/)
    .filter((line) => line.trim() !== "")
    .slice(-KEEP_LINES);
  if (lines.length === 0) return "";
  return `\n${lines.join("\n")}\n(npm start -- --verbose shows all that wrangler and Vite print)`;
}

function onProgress(event) {
  if (event === "checked") {
    const shown = verbose ? "" : "; npm start -- --verbose shows wrangler's and Vite's own output";
    console.log(`npm start: starting on port ${port}${shown}`);
  } else console.log(`npm start: ${DONE[event] ?? event} (${seconds()})`);
}

const abort = new AbortController();
const starting = startDevServer({
  port,
  stateDir,
  devVarsPath,
  buildConsole: "always",
  simHomeRttMs,
  colos,
  signal: abort.signal,
  onProgress,
  ...(verbose ? {} : { onOutput }),
});
let stopping = false;
/** Stops every process start-up began (also mid-start: the wrangler processes run in their own groups). */
async function shutdown(code) {
  if (stopping) return;
  stopping = true;
  abort.abort();
  // An aborted start-up stops what it started before it rejects.
  const server = await starting.catch(() => undefined);
  await server?.stop();
  process.exit(code);
}
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => void shutdown(0));

async function main() {
  let server;
  try {
    server = await starting;
  } catch (error) {
    if (stopping) return;
    console.error(`npm start: ${error.message}${hint(error)}${error.step ? keptOutput(error.step) : ""}`);
    process.exit(1);
  }
  for (const [step, child] of Object.entries(server.processes)) {
    child.on("exit", (code, signal) => {
      if (stopping) return;
      console.error(
        `npm start: a wrangler dev process exited (${signal ?? `code ${code}`}); stopping the others.${following ? "" : keptOutput(step)}`,
      );
      void shutdown(1);
    });
  }
  let demo;
  try {
    demo = await seedDemo({
      url: server.url,
      upstreamUrl: server.upstreamUrl,
      providerUrl: server.providerUrl,
      key: server.key,
      stateDir,
    });
    onProgress("seed");
  } catch (error) {
    if (!stopping) console.error(`Seeding the demo workspace failed: ${error.message}`);
  }
  if (stopping) return;
  console.log(readyBanner(server, demo));
  // What the Workers print from here on (request lines, their console.log) is worth seeing.
  following = true;
}

/** How to get past a refused start, for the errors that have a way around. */
function hint(error) {
  if (error instanceof PortInUseError)
    return "; choose another base port with PORT=<port> npm start (it needs PORT to PORT+2 and PORT+1000 to PORT+1002 free).";
  if (error instanceof StateInUseError)
    return "; stop that one, or give this one its own state with RAYRUN_STATE_DIR=<dir> npm start.";
  return "";
}

/** The banner's line about the simulated distance, when SIM_HOME_RTT_MS or SIM_COLOS asks for it. */
function simLine(base) {
  if (simHomeRttMs === undefined && colos === 1) return "";
  const parts = [];
  if (simHomeRttMs !== undefined)
    parts.push(`each WorkspaceObject, D1 and R2 call waits ${simHomeRttMs} ms (SIM_HOME_RTT_MS)`);
  if (colos > 1)
    parts.push(`gateway colos 1 to ${colos} (SIM_COLOS), picked with the header x-rayrun-colo: <n>`);
  const stats = simHomeRttMs === undefined ? "" : `; counters: curl -s ${base}/__sim/stats`;
  return `\n  simulated distance: ${parts.join("; ")}${stats}`;
}

/** What `npm start` prints once everything answers: URLs, keys and curl examples. */
function readyBanner(server, demo) {
  const base = `http://localhost:${port}`;
  const llm = demo ? `${base}/llm/${demo.workspace}` : "";
  const demoLines = demo
    ? `
  demo workspace: ${demo.workspace}   admin key: ${demo.key}
    the example adapter is active on tool ${demo.tool} (search_release_notes)
    MCP endpoint for clients: ${base}/mcp/${demo.workspace}
    LLM proxy (pre_llm_hook lib/request-policy.ts:transform keeps only fs_read/fs_write; apiKey: the admin key)
      OpenAI SDK baseURL:    ${llm}/openai/v1
      Anthropic SDK baseURL: ${llm}/anthropic
      what the provider received: curl -s ${server.providerUrl}/demo/_received
    plugins (dev/examples/plugins; config order redact, broken, temperature, then word-count auto-discovered):
      MCP tool word_count; echo output with 4+ digit runs comes back [redacted]; broken throws and is dropped;
      LLM proxy calls reach the provider with temperature 0.1`
    : "";
  const mcpCall = (name, args) =>
    `curl -s ${base}/mcp/${demo.workspace} -H "authorization: Bearer ${demo.key}" -H "content-type: application/json" -H "accept: application/json, text/event-stream" -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${name}","arguments":${JSON.stringify(args)}}}'`;
  const llmCurl = demo
    ? `
    ${mcpCall("word_count", { text: "one two three" })}
    ${mcpCall("echo", { text: "card 4111 1111 1111 1111" })}
    curl -s ${llm}/openai/v1/chat/completions -H "authorization: Bearer ${demo.key}" -H "content-type: application/json" -d '{"model":"demo","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"fs_read"}},{"type":"function","function":{"name":"shell_exec"}}]}'`
    : "";
  // The console's address comes first: it is where a new user starts.
  // The seed reached the server at 127.0.0.1; the link is given on the console's own address, so the
  // session cookie it sets belongs to the host the console is opened at.
  const link = demo?.signInUrl ? new URL(demo.signInUrl) : null;
  const signIn = link
    ? `\n  sign in as the demo workspace's admin (the link works once): ${base}${link.pathname}${link.hash}`
    : "";
  return `
Rayrun Hooks console: ${base}/${signIn}${simLine(base)}
  bootstrap key: ${server.key}   (${server.createdKey ? "new, written to" : "from"} ${devVarsPath})
  demo upstream MCP server: ${server.upstreamUrl}/demo/mcp
  demo LLM provider (echo): OpenAI base URL ${server.providerUrl}/demo/v1
                            Anthropic base URL ${server.providerUrl}/demo${demoLines}
  try:
    curl -s ${base}/v1/limits
    curl -s -X POST ${base}/v1/compile -H "authorization: Bearer ${server.key}" -H "content-type: application/json" \\
      -d '{"source":"export default defineToolAdapter({ apiVersion: \\"rayrun.hooks/v1\\", before: ({ arguments: a }) => ({ action: \\"continue\\", arguments: a }) })"}'${llmCurl}
`;
}

await main();
