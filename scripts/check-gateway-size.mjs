#!/usr/bin/env node
// The gateway is the latency-critical Worker: it must stay under 1 MB gzip
// and must never bundle the compiler (esbuild-wasm). Sizes come from the same
// `wrangler deploy --dry-run` output that a deploy would upload.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

const LIMIT_BYTES = 1024 * 1024;
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
const outdir = mkdtempSync(join(tmpdir(), "rayrun-gateway-"));
try {
  const build = spawnSync(
    "npx",
    ["wrangler", "deploy", "--dry-run", "-c", "workers/gateway/wrangler.toml", "--outdir", outdir],
    { encoding: "utf8", env: { ...process.env, WRANGLER_SEND_METRICS: "false" } },
  );
  if (build.status !== 0) {
    console.error(build.stdout, build.stderr);
    process.exit(1);
  }
  let raw = 0;
  let gzip = 0;
  const problems = [];
  for (const name of readdirSync(outdir)) {
    if (name.endsWith(".map") || name === "README.md") continue;
    const bytes = readFileSync(join(outdir, name));
    raw += bytes.length;
    gzip += gzipSync(bytes, { level: 9 }).length;
    if (/esbuild/i.test(name) || bytes.includes("esbuild-wasm")) problems.push(`${name} contains esbuild`);
  }
  console.log(`gateway bundle: ${kib(raw)} raw, ${kib(gzip)} gzip (limit ${kib(LIMIT_BYTES)} gzip)`);
  if (gzip >= LIMIT_BYTES) problems.push(`gzip size ${kib(gzip)} is not under ${kib(LIMIT_BYTES)}`);
  if (problems.length > 0) {
    console.error(`gateway bundle check failed:\n- ${problems.join("\n- ")}`);
    process.exit(1);
  }
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
