// What conformance.test.ts needs beside the shared harness: the reference
// upstream (dev/conformance/main.ts) as a child process, its registration as a
// service of a fresh workspace, and the conformance CLI's run and results.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { stripVTControlCharacters } from "node:util";
import { apiOk, createKey, createWorkspace, isObject, registerService, type Workspace } from "./harness.ts";

export const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));
export const CONFORMANCE_CLI = join(
  REPO_ROOT,
  "node_modules/@modelcontextprotocol/conformance/dist/index.js",
);
export const CONFORMANCE_BASELINE = fileURLToPath(new URL("conformance-baseline.yml", import.meta.url));

/** SIGTERM first; past this the process is killed. */
const STOP_GRACE_MS = 5000;

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
  try {
    await exited;
  } finally {
    clearTimeout(timer);
  }
}

export interface ReferenceUpstream {
  /** Its MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  stop: () => Promise<void>;
}

/**
 * Starts dev/conformance/main.ts on a free port and waits for its one
 * `listening <url>` line. tsx is loaded into node itself (`--import tsx`, what
 * `npx tsx` does in a second process) so the pid we signal is the server's.
 */
export async function startReferenceUpstream(timeoutMs = 60_000): Promise<ReferenceUpstream> {
  const child = spawn(process.execPath, ["--import", "tsx", "dev/conformance/main.ts", "--port", "0"], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    // Its start-up errors are what a failed start reports; a long run's chatter is not kept.
    if (stderr.length < 20_000) stderr += chunk;
  });
  const stdout = child.stdout;
  if (stdout === null) throw new Error("the reference upstream has no stdout pipe");
  const lines = createInterface({ input: stdout });

  const url = await new Promise<string>((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      lines.close();
      reject(
        new Error(
          `reference upstream (dev/conformance/main.ts) ${why}; its stderr:\n${stderr.trim() || "(empty)"}`,
        ),
      );
    };
    const timer = setTimeout(() => fail(`printed no "listening" line within ${timeoutMs} ms`), timeoutMs);
    lines.on("line", (line) => {
      const match = /^listening (http:\/\/127\.0\.0\.1:\d+\/mcp)$/.exec(line.trim());
      if (match?.[1] === undefined) return;
      clearTimeout(timer);
      resolve(match[1]);
    });
    child.once("error", (error) => fail(`could not start: ${error.message}`));
    child.once("exit", (code, signal) => fail(`exited (code ${code}, signal ${signal}) before listening`));
  }).catch(async (error: unknown) => {
    await stopChild(child);
    throw error;
  });
  // Its stdout is still read, so a chatty server never blocks on a full pipe.
  return {
    url,
    stop: async () => {
      lines.close();
      await stopChild(child);
    },
  };
}

export interface ConformanceWorkspace {
  ws: Workspace;
  serviceUid: string;
  /** Public tool names of the reference upstream's service. */
  tools: string[];
  /** A `tools:call` key for `/mcp/{ws}`. */
  callKey: string;
  /** The MCP endpoint's path on the gateway. */
  mcpPath: string;
}

interface ToolItem {
  uid: string;
  name: string | null;
  reviewState: string;
  pendingHash: string | null;
}

/**
 * A fresh workspace with the reference upstream as its only service, every
 * tool callable (a definition awaiting review is accepted), and a key that may
 * only call tools: what an MCP client of the gateway would be given.
 */
export async function registerReferenceUpstream(upstreamUrl: string): Promise<ConformanceWorkspace> {
  const ws = await createWorkspace("reliability-conformance");
  const service = await registerService(ws, "conformance", upstreamUrl);
  const { body } = await apiOk<{ items: ToolItem[] }>(
    "GET",
    `${ws.base}/tools?service=${service.uid}&limit=200`,
    { key: ws.key },
  );
  for (const tool of body.items) {
    if (tool.reviewState !== "review_required" || tool.pendingHash === null) continue;
    await apiOk("POST", `${ws.base}/tools/${tool.uid}/review/accept`, {
      key: ws.key,
      body: { definitionHash: tool.pendingHash },
    });
  }
  const { key } = await createKey(ws, ["tools:call"], "conformance-client");
  return {
    ws,
    serviceUid: service.uid,
    tools: Object.values(service.tools).map((tool) => tool.name),
    callKey: key,
    mcpPath: `/mcp/${ws.uid}`,
  };
}

export interface CliRun {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** stdout and stderr interleaved as they arrived, without colours. */
  output: string;
}

/** The conformance CLI's every server scenario against `url`, judged by the baseline. */
export async function runConformanceSuite(options: {
  url: string;
  outputDir: string;
  timeoutMs: number;
}): Promise<CliRun> {
  const child = spawn(
    process.execPath,
    [
      CONFORMANCE_CLI,
      "server",
      "--url",
      options.url,
      // The active scenarios and the pending ones (json-schema-2020-12, server-sse-polling).
      "--suite",
      "all",
      "--expected-failures",
      CONFORMANCE_BASELINE,
      "-o",
      options.outputDir,
    ],
    { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } },
  );
  const chunks: string[] = [];
  child.stdout?.setEncoding("utf8");
  child.stderr?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => chunks.push(chunk));
  child.stderr?.on("data", (chunk: string) => chunks.push(chunk));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill("SIGTERM");
  }, options.timeoutMs);
  try {
    const [exitCode, signal] = (await once(child, "close")) as [number | null, NodeJS.Signals | null];
    return { exitCode, signal, timedOut, output: stripVTControlCharacters(chunks.join("")) };
  } finally {
    clearTimeout(timer);
  }
}

/** The CLI's closing part: per-scenario totals and the baseline verdict. */
export function summaryOf(output: string): string {
  const at = output.indexOf("=== SUMMARY ===");
  // Without a summary the run broke early: its last lines say why.
  return (at >= 0 ? output.slice(at) : output.split("\n").slice(-40).join("\n")).trim();
}

export interface FailedCheck {
  scenario: string;
  id: string;
  status: string;
  message: string;
}

/**
 * Every check that did not succeed, from the `-o` directory's
 * `server-<scenario>-<timestamp>/checks.json` files: failures, warnings (with
 * a baseline the CLI counts them as failures) and INFO results (a scenario
 * whose checks are all INFO still counts as passed, so they are shown).
 */
export function unsuccessfulChecks(outputDir: string): FailedCheck[] {
  const out: FailedCheck[] = [];
  for (const entry of readdirSync(outputDir, { withFileTypes: true }).toSorted((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    if (!entry.isDirectory()) continue;
    const scenario = entry.name.replace(/^server-/, "").replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, "");
    let checks: unknown;
    try {
      checks = JSON.parse(readFileSync(join(outputDir, entry.name, "checks.json"), "utf8"));
    } catch {
      out.push({ scenario, id: "(none)", status: "MISSING", message: "no readable checks.json" });
      continue;
    }
    if (!Array.isArray(checks)) continue;
    for (const check of checks as unknown[]) {
      if (!isObject(check) || check.status === "SUCCESS") continue;
      // Warnings often carry no errorMessage: their details say what was seen.
      const detail = isObject(check.details) ? check.details.message : undefined;
      const message = [check.errorMessage, detail, check.description].find(
        (text): text is string => typeof text === "string" && text !== "",
      );
      out.push({
        scenario,
        id: String(check.id),
        status: String(check.status),
        message: message ?? "(no message)",
      });
    }
  }
  return out;
}
