// The reference server, `@modelcontextprotocol/server-everything`, as a child
// process in its Streamable HTTP mode: its bin (`dist/index.js`) takes the
// transport as first argument and reads the port from PORT
// (dist/transports/streamableHttp.js), and says it is ready on stderr.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";

const READY_TIMEOUT_MS = 20_000;
const STOP_GRACE_MS = 3000;
/** How much of the server's output is kept to explain a failed start. */
const OUTPUT_TAIL_CHARS = 4000;

export interface Everything {
  /** Its MCP endpoint. */
  url: string;
  stop: () => Promise<void>;
  /** Stops it at once, for an exiting process that cannot await. */
  kill: () => void;
}

/** A loopback port that was free a moment ago (the OS's choice). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen({ port: 0, host: "127.0.0.1" });
  await once(server, "listening");
  const address = server.address();
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
  });
  if (address === null || typeof address === "string") throw new Error("the OS gave no port");
  return address.port;
}

function everythingBin(): string {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve("@modelcontextprotocol/server-everything/package.json");
  const pkg = JSON.parse(readFileSync(manifest, "utf8")) as { bin?: Record<string, string> | string };
  const bin = typeof pkg.bin === "string" ? pkg.bin : pkg.bin?.["mcp-server-everything"];
  if (bin === undefined) throw new Error(`${manifest} names no mcp-server-everything bin`);
  return join(dirname(manifest), bin);
}

export async function startEverything(port: number): Promise<Everything> {
  // Only what Node needs: get-env returns the server's whole environment, and it ends up in the report.
  const child = spawn(process.execPath, [everythingBin(), "streamableHttp"], {
    env: { PATH: process.env.PATH ?? "", PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let tail = "";
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString("utf8")).slice(-OUTPUT_TAIL_CHARS);
  };
  child.stdout.on("data", keep);
  const stop = async () => {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
    await gone;
    clearTimeout(timer);
  };
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`server-everything did not start within ${READY_TIMEOUT_MS} ms:\n${tail}`)),
      READY_TIMEOUT_MS,
    );
    child.stderr.on("data", (chunk: Buffer) => {
      keep(chunk);
      if (tail.includes(`listening on port ${port}`)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`server-everything exited (${signal ?? code}) before it listened:\n${tail}`));
    });
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
  try {
    await ready;
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `http://127.0.0.1:${port}/mcp`, stop, kill: () => child.kill("SIGKILL") };
}
