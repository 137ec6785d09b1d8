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

/**
 * The gateway's parts, lower layers first (a part is a folder or a file at the gateway's top).
 * Within a layer a part imports only the parts listed before it, so no two parts import each
 * other. middleware/ sits just above the bottom, whose parts are all it needs, and only the
 * routes (mcp, llm, app) use it.
 */
const GATEWAY_LAYERS = [
  ["env", "caches", "wire"],
  ["middleware"],
  ["plugins"],
  ["upstream"],
  ["tool-call"],
  ["discovery", "code-mode"],
  ["mcp", "llm", "bench-relay"],
  ["app", "index"],
];
const GATEWAY_ROUTES = ["mcp", "llm", "app"];

/**
 * The sandbox's rooms (`shared/sandbox/<room>/`), lower first: the engine (the
 * QuickJS instance, its layouts and VM), the memory images on it, and a call's
 * host side. A room imports only its own and lower rooms; the files at the
 * sandbox's top (the invocation core and the hook kinds) import them all. The
 * sandbox's contract, `types.ts` and `prelude/`, imports no room, so every room
 * may import it.
 */
const SANDBOX_ROOMS = ["engine", "image", "call"];

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

const sandboxRoomRules = [
  ...SANDBOX_ROOMS.map((room, i) => ({
    name: `upward-sandbox-${room}`,
    comment: `shared/sandbox/${room}/ imports only ${SANDBOX_ROOMS.slice(0, i + 1).join(", ")} and the sandbox's contract (types.ts, prelude/), never the files at the sandbox's top`,
    severity: "error",
    from: { path: `^shared/sandbox/${room}/` },
    to: {
      path: [
        ...(i < SANDBOX_ROOMS.length - 1 ? [`^shared/sandbox/${any(SANDBOX_ROOMS.slice(i + 1))}/`] : []),
        "^shared/sandbox/[^/]+$",
      ],
      pathNot: "^shared/sandbox/types\\.ts$",
    },
  })),
  {
    name: "sandbox-contract-imports-room",
    comment: "the sandbox's contract (types.ts, prelude/) imports no room, so that every room may import it",
    severity: "error",
    from: { path: "^shared/sandbox/(types\\.ts$|prelude/)" },
    to: { path: `^shared/sandbox/${any(SANDBOX_ROOMS)}/` },
  },
];

const gatewayLayerRules = [
  ...GATEWAY_LAYERS.slice(0, -1).map((parts, i) => ({
    name: `upward-gateway-layer-${i}`,
    comment: `the gateway's layer ${i} (${parts.join(", ")}) imports only its own layer and lower ones`,
    severity: "error",
    from: { path: gatewayPart(parts) },
    to: { path: gatewayPart(GATEWAY_LAYERS.slice(i + 1).flat()) },
  })),
  ...GATEWAY_LAYERS.flatMap((parts) =>
    parts.slice(0, -1).map((part, j) => ({
      name: `gateway-sibling-${part}`,
      comment: `the gateway's ${part} imports only the parts listed before it in its layer (${parts.join(", ")})`,
      severity: "error",
      from: { path: gatewayPart([part]) },
      to: { path: gatewayPart(parts.slice(j + 1)) },
    })),
  ),
  {
    name: "gateway-part-without-layer",
    comment:
      "a gateway folder or top file with no layer: give it one in GATEWAY_LAYERS (.dependency-cruiser.mjs)",
    severity: "error",
    from: { path: "^workers/gateway/", pathNot: gatewayPart(GATEWAY_LAYERS.flat()) },
    to: { path: "^workers/gateway/" },
  },
  {
    name: "gateway-middleware-outside-routes",
    comment: "only the gateway's routes (mcp, llm, app) use its middleware",
    severity: "error",
    from: { path: "^workers/gateway/", pathNot: gatewayPart([...GATEWAY_ROUTES, "middleware"]) },
    to: { path: gatewayPart(["middleware"]) },
  },
];

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
    ...sandboxRoomRules,
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
    ...gatewayLayerRules,
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
