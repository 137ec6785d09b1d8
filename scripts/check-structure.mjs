#!/usr/bin/env node
// The structural rules the layout promises, checked over the import graph:
//   1. no import cycles among the project's own modules;
//   2. no upward imports: a Worker's code never imports the other Worker's, `shared/`
//      never imports a Worker, and inside `shared/` a folder imports only folders of
//      its own layer or below (LAYERS), where `durable-objects/` counts as one layer
//      of its own; `durable-objects/` imports only `shared/`, and the rest of the
//      code reaches it through its contract (`rpc.ts`, `head.ts`), never its class,
//      which only the api Worker's entry re-exports;
//   3. no api route file imports another route file;
//   4. every file under `shared/` is loaded by both Workers, or by one Worker plus the
//      CLI or the dev tools and says why in a `// shared-with: <reason>` header line.
// `--report` also prints, per `shared/` file, which entries load it.
// Written by hand: the graph is the project's own TypeScript, resolved the way the
// bundler does (extensionless, `index.ts`), which a regex over the import lines covers.
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** `durable-objects/` as a layer among `shared/`'s folders. */
const DO = "(durable-objects)";
/** The files of `durable-objects/` that code outside it may import. */
const DO_CONTRACT = /^durable-objects\/[^/]+\/(rpc|head)\.ts$/;
const DO_HOST = "workers/api/index.ts";

/** Lower layers first; a `shared/` folder may import its own layer and the ones before it. */
const LAYERS = [
  ["(top)", "http", "sandbox", "sim"],
  ["db", "mcp"],
  ["secrets", "contract", "files"],
  ["config"],
  ["lifecycle"],
  [DO],
  ["logs", "adapter", "auth", "access", "approvals", "deploy", "services", "plugins", "llm", "lease"],
];

const ENTRIES = {
  api: ["workers/api/index.ts"],
  gateway: ["workers/gateway/index.ts"],
  tools: ["cli/main.ts", ...listTs("dev"), ...listTs("bench"), ...listTs("reliability")],
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

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+"([^"]+)"|import\(\s*"([^"]+)"\s*\)|(?:^|\n)\s*import\s+"([^"]+)"/g;

function resolveImport(from, spec) {
  if (!spec.startsWith(".")) return undefined;
  const base = resolve(root, dirname(from), spec.replace(/\?.*$/, ""));
  for (const candidate of [base, `${base}.ts`, `${base}.mjs`, `${base}.js`, join(base, "index.ts")]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return relative(root, candidate);
  }
  return undefined;
}

const edges = new Map();
function importsOf(file) {
  let found = edges.get(file);
  if (found) return found;
  found = [];
  edges.set(file, found);
  const text = readFileSync(join(root, file), "utf8");
  for (const m of text.matchAll(IMPORT)) {
    const target = resolveImport(file, m[1] ?? m[2] ?? m[3]);
    if (target && !target.startsWith("node_modules")) found.push(target);
  }
  return found;
}

function reach(starts) {
  const seen = new Set();
  const stack = [...starts];
  while (stack.length > 0) {
    const f = stack.pop();
    if (seen.has(f)) continue;
    seen.add(f);
    stack.push(...importsOf(f));
  }
  return seen;
}

/** Owners whose folders are ordered by LAYERS. */
const layered = (side) => side === "shared" || side === "durable-objects";

const loadedBy = Object.fromEntries(Object.entries(ENTRIES).map(([k, v]) => [k, reach(v)]));
const all = new Set(Object.values(loadedBy).flatMap((s) => [...s]));
const problems = [];

// 1. Cycles: Tarjan's strongly connected components over the project graph.
{
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index);
    index += 1;
    stack.push(v);
    on.add(v);
    for (const w of importsOf(v)) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || importsOf(v).includes(v))
        problems.push(`cycle: ${component.toSorted((a, b) => a.localeCompare(b)).join(" ↔ ")}`);
    }
  };
  for (const f of [...all].toSorted((a, b) => a.localeCompare(b))) if (!idx.has(f)) visit(f);
}

const layerOf = (file) => {
  const parts = file.split("/");
  const folder = parts[0] === "durable-objects" ? DO : parts.length === 2 ? "(top)" : parts[1];
  const i = LAYERS.findIndex((l) => l.includes(folder));
  return i;
};
const owner = (file) =>
  file.startsWith("workers/api/")
    ? "api"
    : file.startsWith("workers/gateway/")
      ? "gateway"
      : file.startsWith("shared/")
        ? "shared"
        : file.startsWith("durable-objects/")
          ? "durable-objects"
          : "other";

for (const file of [...all].toSorted((a, b) => a.localeCompare(b))) {
  for (const target of importsOf(file)) {
    const [a, b] = [owner(file), owner(target)];
    // 2. Upward imports.
    if ((a === "api" && b === "gateway") || (a === "gateway" && b === "api"))
      problems.push(`upward: ${file} → ${target} (one Worker imports the other's code)`);
    if (a === "shared" && (b === "api" || b === "gateway"))
      problems.push(`upward: ${file} → ${target} (shared code imports a Worker)`);
    if (a === "durable-objects" && b !== "shared" && b !== "durable-objects")
      problems.push(`upward: ${file} → ${target} (durable-objects/ imports only shared/)`);
    if (b === "durable-objects" && a !== "durable-objects" && !DO_CONTRACT.test(target) && file !== DO_HOST)
      problems.push(`contract: ${file} → ${target} (outside durable-objects/, import its rpc.ts)`);
    if (layered(a) && layered(b) && a !== b) {
      const [la, lb] = [layerOf(file), layerOf(target)];
      if (lb >= la) problems.push(`upward: ${file} → ${target} (layer ${la} imports layer ${lb})`);
    }
    if (a === "shared" && b === "shared") {
      const [la, lb] = [layerOf(file), layerOf(target)];
      if (la < 0) problems.push(`layer: ${file} sits in a shared folder with no layer`);
      else if (lb > la) problems.push(`upward: ${file} → ${target} (layer ${la} imports layer ${lb})`);
    }
    // 3. Route → route.
    if (file.startsWith("workers/api/routes/") && target.startsWith("workers/api/routes/"))
      problems.push(`route → route: ${file} → ${target}`);
  }
}

// 4. Every shared file is loaded by both Workers, or says why not.
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

// 5. Tests mirror the code: every code folder has a test folder with tests in it,
//    and every test folder names a code folder.
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
  console.error(`check:structure: ${problems.length} problem(s)`);
  process.exit(1);
}
console.log(`check:structure: ${all.size} modules, no cycles, no upward or route → route imports`);
