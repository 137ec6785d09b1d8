#!/usr/bin/env node
// `npm run check:structure`. dependency-cruiser checks the import rules in
// .dependency-cruiser.mjs (no cycles, no upward imports, the layers of `shared/`,
// `durable-objects/` behind its contract, no route → route) over the graph of
// ENTRIES; this script prints its violations and checks what an import rule cannot say:
//   1. every file under `shared/` is loaded by both Workers, or by one Worker plus the
//      CLI or the dev tools and says why in a `// shared-with: <reason>` header line
//      (a rule sees one import at a time, not which entries reach a file);
//   2. tests mirror the code: every code folder has a test folder with tests in it, and
//      every test folder names a code folder (folders, not imports).
// `--report` also prints, per `shared/` file, which entries load it.
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { cruise, format } from "dependency-cruiser";
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
process.chdir(root);

/** Where each user of the code starts; the tools are the CLI and every file of these folders. */
const ENTRIES = {
  api: ["workers/api/index.ts"],
  gateway: ["workers/gateway/index.ts"],
  tools: ["cli/main.ts", "dev", "bench", "reliability"],
};

function listTs(dir) {
  const out = [];
  const walk = (d) => {
    if (!existsSync(join(root, d))) return;
    for (const name of readdirSync(join(root, d))) {
      const rel = join(d, name);
      if (name === "node_modules" || name.startsWith(".")) continue;
      if (statSync(join(root, rel)).isDirectory()) walk(rel);
      else if (/\.(ts|mjs|js)$/.test(name) && !name.endsWith(".d.ts")) out.push(rel);
    }
  };
  walk(dir);
  return out;
}

const options = await extractDepcruiseOptions(join(root, ".dependency-cruiser.mjs"));
const cruised = await cruise(Object.values(ENTRIES).flat(), { ...options, outputType: "json" });
const graph = typeof cruised.output === "string" ? JSON.parse(cruised.output) : cruised.output;
const problems = [];

const rules = await format(graph, { outputType: "err-long" });
// The err-long reporter writes text: one line per violation, its rule and why.
if (rules.exitCode !== 0 && typeof rules.output === "string") problems.push(rules.output.trim());

/** The project's own modules and what each imports of them. */
const own = (source) => !/(^|\/)node_modules\//.test(source) && existsSync(join(root, source));
const imports = new Map(
  graph.modules
    .filter((m) => own(m.source))
    .map((m) => [m.source, m.dependencies.map((d) => d.resolved).filter(own)]),
);
function reach(starts) {
  const seen = new Set();
  const stack = [...starts];
  while (stack.length > 0) {
    const file = stack.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    stack.push(...(imports.get(file) ?? []));
  }
  return seen;
}
const loadedBy = Object.fromEntries(
  Object.entries(ENTRIES).map(([user, paths]) => [
    user,
    reach(paths.flatMap((p) => (statSync(join(root, p)).isDirectory() ? listTs(p) : [p]))),
  ]),
);

// 1. Every shared file is loaded by both Workers, or says why not.
const report = [];
for (const file of listTs("shared").toSorted((a, b) => a.localeCompare(b))) {
  const users = Object.keys(ENTRIES).filter((k) => loadedBy[k].has(file));
  report.push(`${users.join("+").padEnd(18)} ${file}`);
  if (users.includes("api") && users.includes("gateway")) continue;
  const header = readFileSync(join(root, file), "utf8").split("\n").slice(0, 12).join("\n");
  const workers = users.filter((u) => u !== "tools");
  if (workers.length === 1 && users.includes("tools") && /\/\/ shared-with: \S/.test(header)) continue;
  problems.push(`not shared: ${file} is loaded by ${users.join(" and ") || "nothing"}`);
}

// 2. Tests mirror the code.
const CODE_ROOTS = ["shared", "durable-objects", "workers/api", "workers/gateway"];
const folders = (dir) =>
  existsSync(join(root, dir))
    ? readdirSync(join(root, dir)).filter(
        (n) => !n.startsWith(".") && statSync(join(root, dir, n)).isDirectory(),
      )
    : [];
for (const code of CODE_ROOTS) {
  for (const folder of folders(code)) {
    if (`${code}/${folder}` === "shared/sandbox/prelude") continue;
    const tests = listTs(`test/${code}/${folder}`).filter((f) => f.endsWith(".test.ts"));
    if (tests.length === 0)
      problems.push(`untested: ${code}/${folder} has no tests in test/${code}/${folder}`);
  }
  for (const folder of folders(`test/${code}`)) {
    if (!existsSync(join(root, code, folder))) problems.push(`test/${code}/${folder} mirrors no code folder`);
  }
}

if (process.argv.includes("--report")) console.log(report.join("\n"));
if (problems.length > 0) {
  console.error(problems.join("\n"));
  console.error("check:structure: failed");
  process.exit(1);
}
console.log(
  `check:structure: ${imports.size} modules, no dependency violations, every shared/ file shared, tests mirror the code`,
);
