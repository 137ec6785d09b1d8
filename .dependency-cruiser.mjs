// The import rules the layout promises, checked by dependency-cruiser over the graph
// that `npm run check:structure` cruises: the api Worker, the gateway, and the tools
// (the CLI and every file under dev/, bench/ and reliability/). What the import graph
// alone cannot say (a `shared/` file's users, tests mirroring the code) is checked by
// scripts/check-structure.mjs. docs/architecture.md#structural-rules explains each rule.

/** `shared/`'s folders, lower layers first: a folder imports only its own layer and the ones before it. */
const LAYERS = [
  ["http", "sandbox", "sim"],
  ["db", "mcp"],
  ["secrets", "contract", "files"],
  ["config"],
  ["lifecycle"],
  // durable-objects/ sits here, between lifecycle and the folders that call the object.
  [],
  ["logs", "adapter", "auth", "access", "approvals", "deploy", "services", "plugins", "llm", "lease"],
];
const DO_LAYER = 5;

/** The gateway's parts, lower layers first (a part is a folder or a file at the gateway's top). */
const GATEWAY_LAYERS = [
  ["wire"],
  ["plugins"],
  ["upstream"],
  ["tool-call"],
  ["discovery", "code-mode"],
  ["mcp", "llm"],
  ["app"],
];
// The gateway's code does not follow its layers yet: CHECK_GATEWAY_LAYERS=1 turns
// the rules on, to count what is left (`CHECK_GATEWAY_LAYERS=1 npm run check:structure`).
const GATEWAY_LAYERS_ON = process.env.CHECK_GATEWAY_LAYERS === "1";

const any = (names) => `(${names.join("|")})`;
/** The files at the top of `shared/` belong to layer 0. */
const sharedLayer = (i) => (i === 0 ? `^shared/([^/]+$|${any(LAYERS[0])}/)` : `^shared/${any(LAYERS[i])}/`);
const sharedAbove = (i) => `^shared/${any(LAYERS.slice(i + 1).flat())}/`;
const gatewayPart = (names) => `^workers/gateway/${any(names)}(/|\\.ts$)`;

const sharedLayerRules = LAYERS.flatMap((folders, i) => {
  if (i === LAYERS.length - 1) return [];
  if (i === DO_LAYER)
    return [
      {
        name: "upward-durable-objects",
        comment: `durable-objects/ (layer ${i}) imports only shared/ folders of lower layers`,
        severity: "error",
        from: { path: "^durable-objects/" },
        to: { path: sharedAbove(i) },
      },
    ];
  return [
    {
      name: `upward-shared-layer-${i}`,
      comment: `shared/ layer ${i} (${i === 0 ? "top files, " : ""}${folders.join(", ")}) imports only its own layer and lower ones`,
      severity: "error",
      from: { path: sharedLayer(i) },
      to: { path: [sharedAbove(i), ...(i < DO_LAYER ? ["^durable-objects/"] : [])] },
    },
  ];
});

const gatewayLayerRules = GATEWAY_LAYERS.slice(0, -1).map((parts, i) => ({
  name: `upward-gateway-layer-${i}`,
  comment: `the gateway's layer ${i} (${parts.join(", ")}) imports only its own layer and lower ones`,
  severity: "error",
  from: { path: gatewayPart(parts) },
  to: { path: gatewayPart(GATEWAY_LAYERS.slice(i + 1).flat()) },
}));

/** @type {import("dependency-cruiser").IConfiguration} */
export default {
  forbidden: [
    {
      name: "no-circular",
      comment: "an import cycle among the project's own modules",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "worker-imports-other-worker",
      comment: "one Worker imports the other's code: what both need goes in shared/",
      severity: "error",
      from: { path: "^workers/(api|gateway)/" },
      to: { path: "^workers/(api|gateway)/", pathNot: "^workers/$1/" },
    },
    {
      name: "shared-imports-worker",
      comment: "shared/ code imports a Worker's",
      severity: "error",
      from: { path: "^shared/" },
      to: { path: "^workers/" },
    },
    {
      name: "shared-folder-without-layer",
      comment: "a shared/ folder with no layer: give it one in LAYERS (.dependency-cruiser.mjs)",
      severity: "error",
      from: { path: "^shared/[^/]+/", pathNot: `^shared/${any(LAYERS.flat())}/` },
      to: { path: "^(shared|durable-objects)/" },
    },
    ...sharedLayerRules,
    {
      name: "durable-objects-imports-only-shared",
      comment: "durable-objects/ imports only shared/",
      severity: "error",
      from: { path: "^durable-objects/" },
      to: { dependencyTypes: ["local"], pathNot: "^(shared|durable-objects)/" },
    },
    {
      name: "durable-objects-contract",
      comment:
        "outside durable-objects/, import its contract (rpc.ts, head.ts); only the api Worker's entry re-exports the class",
      severity: "error",
      from: { pathNot: ["^durable-objects/", "^workers/api/index\\.ts$"] },
      to: { path: "^durable-objects/", pathNot: "^durable-objects/[^/]+/(rpc|head)\\.ts$" },
    },
    {
      name: "route-imports-route",
      comment: "an api route imports another: what two routes share goes in a module outside routes/",
      severity: "error",
      from: { path: "^workers/api/routes/" },
      to: { path: "^workers/api/routes/" },
    },
    ...(GATEWAY_LAYERS_ON ? gatewayLayerRules : []),
  ],
  options: {
    // TypeScript 7 has no JavaScript API for dependency-cruiser to parse with: swc parses
    // the TypeScript, keeping type-only imports, which count like any other.
    parser: "swc",
    doNotFollow: { path: "node_modules" },
    // Imports name their files (`./x.ts`) or leave the extension out, as the bundler allows.
    enhancedResolveOptions: { extensions: [".ts", ".mjs", ".js"] },
  },
};
