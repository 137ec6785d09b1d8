// `npm run deploy` (scripts/deploy.mjs): the plan it makes from the flags it is
// given, and a real `--dry-run` that builds the console and both Workers
// without a Cloudflare account, api Worker first.
import { afterAll, describe, expect, it } from "vitest";
import { deploySteps, readFile, removeDir, REPO, runDeploy, splitArgs, tempDir } from "./deploy-run.mjs";
import { devOnlyVars, simulationRefusal } from "./sim-run.mjs";

describe("the deploy plan", () => {
  it("builds the console, then deploys the api Worker, then the gateway, each with the flags given", () => {
    const plan = deploySteps(["--dry-run", "--message", "release 7"]);
    if ("error" in plan) throw new Error(plan.error);
    expect(plan.steps.map((step) => step.worker?.name ?? "console")).toEqual([
      "console",
      "rayrun-api",
      "rayrun-gateway",
    ]);
    expect(plan.steps[1]?.command).toEqual([
      "npx",
      "wrangler",
      "deploy",
      "-c",
      "wrangler.toml",
      "--dry-run",
      "--message",
      "release 7",
    ]);
    expect(plan.steps[2]?.command.slice(3, 5)).toEqual(["-c", "workers/gateway/wrangler.toml"]);
    expect(plan.dryRun).toBe(true);
  });

  it("gives each Worker its own folder under --outdir", () => {
    for (const args of [
      ["--outdir", "out", "--dry-run"],
      ["--outdir=out", "--dry-run"],
    ]) {
      const plan = deploySteps(args);
      if ("error" in plan) throw new Error(plan.error);
      expect(plan.steps[1]?.command).toContain("out/api");
      expect(plan.steps[2]?.command).toContain("out/gateway");
      expect(plan.steps.flatMap((step) => step.command)).not.toContain("out");
    }
  });

  it("refuses flags the two deploys cannot share", () => {
    for (const args of [
      ["--name", "x"],
      ["-c", "other.toml"],
      ["--config=other.toml"],
      ["--outfile", "x.js"],
    ]) {
      expect(splitArgs(args), args.join(" ")).toHaveProperty("error");
    }
    expect(splitArgs(["--outdir"])).toEqual({ error: "--outdir needs a directory" });
  });
});

describe("the simulated distance's vars", () => {
  it("are found wherever a config sets them, and nowhere else", () => {
    expect(devOnlyVars('[vars]\nLOG_BATCH_MS = "200"\nSIM_HOME_RTT_MS = "50"\n')).toEqual([
      "SIM_HOME_RTT_MS",
    ]);
    expect(devOnlyVars('[env.staging.vars]\n"SIM_COLOS" = "3"')).toEqual(["SIM_COLOS"]);
    expect(devOnlyVars('vars = { SIM_HOME_RTT_MS = "0", SIM_COLOS = "2" }')).toEqual([
      "SIM_HOME_RTT_MS",
      "SIM_COLOS",
    ]);
    expect(devOnlyVars("vars.SIM_HOME_RTT_MS = 10")).toEqual(["SIM_HOME_RTT_MS"]);
    expect(
      devOnlyVars('# SIM_HOME_RTT_MS = "50": dev only\nA = "#" # SIM_COLOS = 3\nSIM_HOME_RTT_MSX = 1'),
    ).toEqual([]);
  });

  it("refuse a deploy, naming the config and the var in one line", () => {
    const configs: Record<string, string> = {
      "wrangler.toml": '[vars]\nLOG_BATCH_MS = "200"\n',
      "workers/gateway/wrangler.toml": '[vars]\nSIM_COLOS = "3"\n',
    };
    const refusal = simulationRefusal((path) => configs[path] ?? "");
    expect(refusal).toMatch(/^workers\/gateway\/wrangler\.toml sets SIM_COLOS, a dev-only simulation/);
    expect(refusal).not.toContain("\n");
    configs["wrangler.toml"] += 'SIM_HOME_RTT_MS = "50"\n';
    expect(simulationRefusal((path) => configs[path] ?? "")).toMatch(/^wrangler\.toml sets SIM_HOME_RTT_MS/);
  });

  it("refuse the switch that skips the lease wait, wherever it is set", () => {
    expect(devOnlyVars('[vars]\nSIM_UNSAFE_SKIP_LEASE_WAIT = "1"\n')).toEqual(["SIM_UNSAFE_SKIP_LEASE_WAIT"]);
    expect(devOnlyVars('vars = { LEASE_MS = "1000", SIM_UNSAFE_SKIP_LEASE_WAIT = "0" }')).toEqual([
      "SIM_UNSAFE_SKIP_LEASE_WAIT",
    ]);
    const configs: Record<string, string> = {
      "wrangler.toml": '[vars]\nLEASE_MS = "1000"\nSIM_UNSAFE_SKIP_LEASE_WAIT = "1"\n',
      "workers/gateway/wrangler.toml": "",
    };
    const refusal = simulationRefusal((path) => configs[path] ?? "");
    expect(refusal).toMatch(
      /^wrangler\.toml sets SIM_UNSAFE_SKIP_LEASE_WAIT, a test-only switch that lets writes return before older leases end/,
    );
    expect(refusal).not.toContain("\n");
  });

  it("are set by neither committed config", () => {
    expect(simulationRefusal()).toBeNull();
  });
});

describe("npm run deploy -- --dry-run", () => {
  const out = tempDir();
  afterAll(() => removeDir(out));

  it("builds the console and both Workers offline, the api Worker first", { timeout: 180_000 }, async () => {
    const started = Date.now();
    const { status, output } = await runDeploy(["--dry-run", "--outdir", out]);
    expect(status, output).toBe(0);

    const steps = [
      "deploy 1/3: web console",
      "deploy 2/3: rayrun-api (wrangler.toml)",
      "deploy 3/3: rayrun-gateway (workers/gateway/wrangler.toml)",
      "deploy: dry run done, nothing uploaded",
    ].map((line) => output.indexOf(line));
    expect(
      steps.every((at) => at >= 0),
      output,
    ).toBe(true);
    expect(steps.toSorted((a, b) => a - b)).toEqual(steps);

    // The api Worker's build read the console just built, and binds the class it hosts.
    const [, apiAt = 0, gatewayAt = 0] = steps;
    const apiOutput = output.slice(apiAt, gatewayAt);
    expect(apiOutput).toMatch(/Read \d+ files from the assets directory .*console\/dist/);
    expect(apiOutput).toContain("env.WORKSPACE (WorkspaceObject)");
    expect(output.slice(gatewayAt)).toContain("WorkspaceObject, defined in rayrun-api");
    expect(readFile(`${REPO}/console/dist/index.html`)?.mtimeMs).toBeGreaterThanOrEqual(started - 1000);

    const api = readFile(`${out}/api/index.js`);
    const gateway = readFile(`${out}/gateway/index.js`);
    expect(api, "api bundle").not.toBeNull();
    expect(gateway, "gateway bundle").not.toBeNull();
    expect(api?.text).toMatch(/export \{[^}]*\bWorkspaceObject\b/);
    expect(gateway?.text).not.toContain("esbuild-wasm");
    expect(api?.mtimeMs).toBeLessThanOrEqual(gateway?.mtimeMs ?? 0);
  });
});
