// Bundles the `rayrun` CLI (cli/bin.ts and what it imports) into one ES module,
// cli/dist/rayrun.mjs, which the launcher cli/rayrun.mjs runs. Node then loads one
// plain JavaScript file per call instead of stripping the types of some thirty
// TypeScript modules, and the bundle runs on Node 20 as well (nothing in it needs
// type stripping). `npm install` and `npm ci` build it (postinstall); the launcher
// rebuilds it when a file it was built from has changed since, so a checkout never
// runs a CLI older than its sources.
//
// Plain JavaScript without dependencies of its own: it runs under whatever Node
// started the launcher, Node 20 included.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const ENTRY = "cli/bin.ts";
export const BUNDLE = join(ROOT, "cli/dist/rayrun.mjs");
/** What the bundle was built from and when: the launcher's freshness check reads it. */
const MANIFEST = join(ROOT, "cli/dist/rayrun.json");
const THIS_FILE = relative(ROOT, fileURLToPath(import.meta.url));

/**
 * esbuild's native package, which the dev dependencies (vite, wrangler, tsx) install, or else the
 * WebAssembly build the API's compiler depends on (an install without dev dependencies has only that).
 */
async function loadEsbuild() {
  try {
    return await import("esbuild");
  } catch {
    return import("esbuild-wasm");
  }
}

/** Whether the bundle is missing, or older than a file it was built from (or than this script). */
export function bundleIsStale() {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(MANIFEST, "utf8"));
  } catch {
    return true;
  }
  if (typeof manifest.builtAt !== "number" || !Array.isArray(manifest.inputs)) return true;
  if (!existsSync(BUNDLE)) return true;
  for (const input of [...manifest.inputs, THIS_FILE]) {
    let stat;
    try {
      stat = statSync(join(ROOT, input));
    } catch {
      return true;
    }
    if (stat.mtimeMs > manifest.builtAt) return true;
  }
  return false;
}

/**
 * Builds cli/dist/rayrun.mjs. Each file is written under a temporary name and renamed into place,
 * so a CLI started meanwhile (or a second build racing this one) never reads half a file.
 */
export async function buildCli() {
  const { build } = await loadEsbuild();
  // Taken before esbuild reads anything: a source saved during the build counts as newer.
  const builtAt = Date.now();
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: [ENTRY],
    bundle: true,
    platform: "node",
    format: "esm",
    // The oldest Node the launcher accepts; the CLI uses nothing newer.
    target: "node20",
    tsconfig: "cli/tsconfig.json",
    // Prettier (about 4 MB) is loaded only by `files save` for a source that did not parse: from
    // node_modules when asked, rather than read on every call.
    external: ["prettier", "prettier/*"],
    write: false,
    metafile: true,
    logLevel: "silent",
    legalComments: "none",
    banner: { js: "// Built by scripts/build-cli.mjs from cli/ (npm install); not committed." },
  });
  const [output] = result.outputFiles;
  if (output === undefined) throw new Error("esbuild produced no output");
  const inputs = Object.keys(result.metafile.inputs)
    .filter((path) => !path.split("/").includes("node_modules"))
    .toSorted();
  mkdirSync(dirname(BUNDLE), { recursive: true });
  const suffix = `.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  const place = (path, contents) => {
    try {
      writeFileSync(path + suffix, contents);
      renameSync(path + suffix, path);
    } finally {
      rmSync(path + suffix, { force: true });
    }
  };
  place(BUNDLE, output.contents);
  place(MANIFEST, `${JSON.stringify({ builtAt, inputs }, null, 2)}\n`);
  return { bundle: BUNDLE, bytes: output.contents.byteLength, inputs: inputs.length };
}

/** Builds the bundle unless it is up to date; answers whether it built. */
export async function ensureCliBundle() {
  if (!bundleIsStale()) return false;
  await buildCli();
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { bytes, inputs } = await buildCli();
  console.log(
    `build-cli: ${relative(process.cwd(), BUNDLE) || BUNDLE} (${Math.round(bytes / 1024)} KB from ${inputs} source files)`,
  );
}
