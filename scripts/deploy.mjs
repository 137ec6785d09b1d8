#!/usr/bin/env node
// `npm run deploy [-- <wrangler deploy flags>]`: builds the web console, then
// deploys the api Worker, then the gateway, stopping at the first failure.
// Every flag goes to both `wrangler deploy` runs (`--dry-run` builds without
// uploading; `--outdir <dir>` becomes `<dir>/api` and `<dir>/gateway`).
//
// The api Worker goes first: it hosts the WorkspaceObject Durable Object the
// gateway binds to by `script_name`, so a new gateway never calls a Durable
// Object older than itself. (The api Worker's GATEWAY service binding needs the
// gateway Worker to exist too; the first `wrangler secret put` on each Worker
// creates it: docs/deploy.md.)
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ensureMeteredWasm } from "./meter-wasm.mjs";

export const WORKERS = [
  {
    key: "api",
    name: "rayrun-api",
    config: "wrangler.toml",
    role: "hosts WorkspaceObject, the console, the cron",
  },
  {
    key: "gateway",
    name: "rayrun-gateway",
    config: "workers/gateway/wrangler.toml",
    role: "binds the api Worker's WorkspaceObject",
  },
];

/** Flags that would make both deploys write or name the same thing. */
const REFUSED = ["-c", "--config", "--name", "--outfile"];

/** The flags as given, and the `--outdir` among them (removed), or an error for a flag both deploys cannot share. */
export function splitArgs(argv) {
  const rest = [];
  let outdir = null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? arg.split(/=(.*)/s) : [arg, undefined];
    if (REFUSED.includes(flag)) return { error: `${flag} cannot be passed to both Workers' deploys` };
    if (flag === "--outdir") {
      outdir = inline ?? argv[++i] ?? null;
      if (outdir === null) return { error: "--outdir needs a directory" };
      continue;
    }
    rest.push(arg);
  }
  return { rest, outdir };
}

/** The steps of a deploy with `argv` passed through: what each prints and runs. */
export function deploySteps(argv) {
  const split = splitArgs(argv);
  if (split.error) return split;
  const { rest, outdir } = split;
  const steps = [
    {
      label: "web console → console/dist (the api Worker's static assets)",
      command: ["npx", "vite", "build", "-c", "console/vite.config.ts", "--logLevel", "warn"],
    },
    ...WORKERS.map((worker) => ({
      label: `${worker.name} (${worker.config}): ${worker.role}`,
      command: [
        "npx",
        "wrangler",
        "deploy",
        "-c",
        worker.config,
        ...(outdir === null ? [] : ["--outdir", join(outdir, worker.key)]),
        ...rest,
      ],
      worker,
    })),
  ];
  return { steps, dryRun: rest.some((arg) => arg === "--dry-run" || arg === "--dry-run=true"), outdir };
}

/**
 * Vars that only simulate a distant home on one machine (docs/architecture.md, "Distance,
 * simulated"): deployed, every call to the WorkspaceObject, D1 and R2 would wait for nothing.
 */
const DISTANCE_VARS = ["SIM_HOME_RTT_MS", "SIM_COLOS", "SIM_COLO"];
/**
 * Lets writes return before older leases end (durable-objects/workspace/lease.ts): deployed, a call
 * could run a revision, or admit a key, that a returned deploy or revocation had replaced.
 */
const UNSAFE_VARS = ["SIM_UNSAFE_SKIP_LEASE_WAIT"];
const DEV_ONLY_VARS = [...DISTANCE_VARS, ...UNSAFE_VARS];

/** The dev-only vars a wrangler config's text sets, as keys anywhere (a [vars] table, an env's, inline). */
export function devOnlyVars(text) {
  const found = new Set();
  for (const line of text.split("\n")) {
    // What follows a `#` outside quotes is a comment.
    const code = line.replace(/^((?:[^"'#]|"(?:[^"\\]|\\.)*"|'[^']*')*)#.*$/, "$1");
    for (const name of DEV_ONLY_VARS)
      if (new RegExp(`(?:^|[\\s{,.])["']?${name}["']?\\s*=`).test(code)) found.add(name);
  }
  return [...found];
}

/** Why the Workers' configs cannot be deployed (one line), or null; `read` gives a config's text. */
export function simulationRefusal(read = (path) => readFileSync(path, "utf8")) {
  for (const worker of WORKERS) {
    const names = devOnlyVars(read(worker.config));
    if (names.length === 0) continue;
    const what = names.some((name) => UNSAFE_VARS.includes(name))
      ? "a test-only switch that lets writes return before older leases end (durable-objects/workspace/lease.ts)"
      : "a dev-only simulation of distance (docs/architecture.md)";
    return `${worker.config} sets ${names.join(" and ")}, ${what}; remove ${names.length === 1 ? "it" : "them"} to deploy`;
  }
  return null;
}

/** What a failed real deploy most often needs (a dry run never reaches Cloudflare, so it gets none). */
const HINT = {
  api: "on a first deploy, set RAYRUN_BOOTSTRAP_KEY on both Workers before deploying (docs/deploy.md, step 4)",
  gateway: "rayrun-api is already deployed; fix the cause and run npm run deploy again",
};

function main() {
  const plan = deploySteps(process.argv.slice(2));
  if (plan.error) {
    console.error(`deploy: ${plan.error}`);
    process.exit(2);
  }
  const refusal = simulationRefusal();
  if (refusal !== null) {
    console.error(`deploy: ${refusal}`);
    process.exit(2);
  }
  // Both Workers bundle the sandbox's metered wasm (`npm ci` writes it; this covers --ignore-scripts).
  ensureMeteredWasm();
  const env = { ...process.env, WRANGLER_SEND_METRICS: process.env.WRANGLER_SEND_METRICS ?? "false" };
  const total = plan.steps.length;
  for (const [index, step] of plan.steps.entries()) {
    console.log(
      `deploy ${index + 1}/${total}: ${step.label}${plan.dryRun && step.worker ? " [dry run]" : ""}`,
    );
    const run = spawnSync(step.command[0], step.command.slice(1), { stdio: "inherit", env });
    if (run.status !== 0) {
      const hint = step.worker && !plan.dryRun ? `; ${HINT[step.worker.key]}` : "";
      console.error(`deploy ${index + 1}/${total} failed (exit ${run.status ?? run.signal})${hint}`);
      process.exit(1);
    }
  }
  const where = plan.outdir === null ? "" : `; bundles in ${plan.outdir}/api and ${plan.outdir}/gateway`;
  console.log(
    plan.dryRun ? `deploy: dry run done, nothing uploaded${where}` : "deploy: both Workers deployed",
  );
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main();
