// The editor's declarations for workspace files (workers/api/contract/file-types.ts),
// type-checked by the TypeScript compiler in Node (the node project of vitest.config.ts): the
// product's examples compile against them as written and typed by the contract,
// wrong code fails with the error a user would see, and the declared types are
// the runtime's own (mutually assignable to the types the runtime code uses), so
// the declarations cannot drift from what the sandbox really passes.
import { describe, expect, it } from "vitest";
import { fileKindTypes } from "../../../../workers/api/contract/file-types";
import { REPO, repoFile, repoFiles, typecheck } from "./typecheck";

const LIB = fileKindTypes("lib");
const PLUGIN = fileKindTypes("plugin");

/** The examples as workspace files: path in the workspace → source. */
const LIB_EXAMPLES: Record<string, string> = {
  "lib/request-policy.ts": repoFile("dev/examples/request-policy.ts"),
  "lib/fast-rag-hook.ts": repoFile("dev/examples/fast-rag-hook.ts"),
  "lib/fast-rag.ts": repoFile("dev/examples/fast-rag.ts"),
};
const PLUGIN_EXAMPLES: Record<string, string> = Object.fromEntries(
  repoFiles("dev/examples/plugins", ".ts").map((path) => [
    `plugins/${path.split("/").at(-1)}`,
    repoFile(path),
  ]),
);

const clean = (diagnostics: Record<string, string[]>) =>
  Object.fromEntries(Object.entries(diagnostics).filter(([, list]) => list.length > 0));

/** `source` with `pattern` replaced; throws when nothing matched (an example changed shape). */
function rewrite(source: string, pattern: RegExp, replacement: string): string {
  const out = source.replace(pattern, replacement);
  if (out === source) throw new Error(`no match for ${pattern}`);
  return out;
}

/** A request hook as the declarations suggest typing it: `transform` as a RayrunRequestHook. */
const typedHook = (source: string) =>
  rewrite(
    source,
    /export (async )?function transform\(/,
    "export const transform: RayrunRequestHook = $1function transform(",
  );
/** A plugin as the declarations suggest typing it: `export default { … } satisfies RayrunPlugin`. */
const typedPlugin = (source: string) =>
  rewrite(source, /export default (\{[\s\S]*\});\s*$/, "export default $1 satisfies RayrunPlugin;\n");

describe("the served declarations", () => {
  it("compile on their own, strict, for both kinds", () => {
    expect(clean(typecheck(LIB, {}))).toEqual({});
    expect(clean(typecheck(PLUGIN, {}))).toEqual({});
  });

  it("cover every plugin example (the folder is not empty)", () => {
    expect(Object.keys(PLUGIN_EXAMPLES)).toEqual(
      expect.arrayContaining(["plugins/redact.ts", "plugins/temperature.ts", "plugins/word-count.ts"]),
    );
  });
});

describe("the product's examples", () => {
  it("compile as written: lib examples against the lib declarations", () => {
    expect(clean(typecheck(LIB, LIB_EXAMPLES, { noImplicitAny: false }))).toEqual({});
  });

  it("compile as written: plugin examples against the plugin declarations", () => {
    expect(clean(typecheck(PLUGIN, PLUGIN_EXAMPLES, { noImplicitAny: false }))).toEqual({});
  });

  it("compile strictly once typed by the contract: each transform a RayrunRequestHook", () => {
    const files = {
      "lib/request-policy.ts": typedHook(LIB_EXAMPLES["lib/request-policy.ts"] ?? ""),
      "lib/fast-rag-hook.ts": typedHook(LIB_EXAMPLES["lib/fast-rag-hook.ts"] ?? ""),
      "lib/fast-rag.ts": LIB_EXAMPLES["lib/fast-rag.ts"] ?? "",
    };
    expect(clean(typecheck(LIB, files))).toEqual({});
  });

  it("compile strictly once typed by the contract: each plugin `satisfies RayrunPlugin`", () => {
    const files = Object.fromEntries(
      Object.entries(PLUGIN_EXAMPLES).map(([path, source]) => [path, typedPlugin(source)]),
    );
    expect(clean(typecheck(PLUGIN, files))).toEqual({});
  });
});

/** The `ts` code blocks of a doc's "Types in the editor" section. */
function editorSnippets(doc: string): string[] {
  const text = repoFile(doc);
  const section = text.slice(text.indexOf("## Types in the editor"));
  const body = section.slice(0, section.indexOf("\n## ", 1));
  return [...body.matchAll(/```ts\n([\s\S]*?)```/g)].map(([, code = ""]) => code);
}

describe('the docs\' "Types in the editor" examples', () => {
  it.each([
    ["docs/request-hooks.md", "lib", LIB],
    ["docs/plugins.md", "plugins", PLUGIN],
  ] as const)("%s compiles strictly against the %s declarations", (doc, folder, declarations) => {
    const snippets = editorSnippets(doc);
    expect(snippets.length).toBeGreaterThan(0);
    const files = Object.fromEntries(snippets.map((code, i) => [`${folder}/doc-${i}.ts`, code]));
    expect(clean(typecheck(declarations, files))).toEqual({});
  });
});

/** [what is wrong, the file's source, the error it must produce]. */
type Wrong = [string, string, RegExp];

const HOOK = "export function transform({ request, loop }: RayrunRequestHookInput): RayrunRequest";
const LIB_WRONG: Wrong[] = [
  [
    "a request field that does not exist",
    `${HOOK} { return { ...request, tools: request.tool }; }`,
    /Property 'tool' does not exist/,
  ],
  [
    "a provider's spelling of an option",
    `${HOOK} { return { ...request, options: { max_tokens: 5 } }; }`,
    /'max_tokens' does not exist in type 'RayrunRequestOptions'/,
  ],
  [
    "an incomplete request",
    `${HOOK} { return { messages: request.messages, tools: request.tools }; }`,
    /Property 'options' is missing/,
  ],
  [
    "the input wrapper instead of the request",
    `export const transform: RayrunRequestHook = (input) => input;`,
    /'RayrunRequestHookInput' is not assignable/,
  ],
  [
    "a role the neutral request does not have",
    `${HOOK} { return { ...request, messages: [{ role: "system", content: "x" }] }; }`,
    /'"system"' is not assignable to type '"user" \| "assistant"'/,
  ],
  [
    "a provider's spelling of a block field",
    `${HOOK} { return { ...request, messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: "" }] }] }; }`,
    /'tool_use_id' does not exist/,
  ],
  [
    "loop has only a name",
    `${HOOK} { return { ...request, system: loop.id }; }`,
    /Property 'id' does not exist on type 'RayrunLoop'/,
  ],
  [
    "rayrun.lambda with a wrong field",
    `export async function transform({ request }: RayrunRequestHookInput) { await rayrun.lambda({ src: "lib/x.ts:f" }); return request; }`,
    /'src' does not exist in type 'RayrunLambdaCall'/,
  ],
  [
    "rayrun.lambda of a plugin",
    `export async function transform({ request }: RayrunRequestHookInput) { await rayrun.lambda({ source: "plugins/x.ts" }); return request; }`,
    /not assignable to type '`lib\/\$\{string\}`'/,
  ],
  [
    "adf.sys_lambda with a wrong field, as rayrun.lambda",
    `export async function transform({ request }: RayrunRequestHookInput) { await adf.sys_lambda({ src: "lib/x.ts:f" }); return request; }`,
    /'src' does not exist in type 'RayrunLambdaCall'/,
  ],
  [
    "adf.model_invoke with an unknown provider, as rayrun.model",
    `export async function transform({ request }: RayrunRequestHookInput) { await adf.model_invoke({ provider: "gemini", request }); return request; }`,
    /'"gemini"' is not assignable to type 'RayrunProviderName'/,
  ],
  [
    "rayrun.model with an unknown provider",
    `export async function transform({ request }: RayrunRequestHookInput) { await rayrun.model({ provider: "gemini", request }); return request; }`,
    /'"gemini"' is not assignable to type 'RayrunProviderName'/,
  ],
  [
    "a log level that does not exist",
    `${HOOK} { rayrun.log.trace("x"); return request; }`,
    /Property 'trace' does not exist on type 'RayrunLog'/,
  ],
  [
    "log data that is not JSON",
    `${HOOK} { rayrun.log.info("x", new Date()); return request; }`,
    /'Date' is not assignable to parameter of type 'RayrunJson/,
  ],
];

const plugin = (members: string) => `export default { ${members} } satisfies RayrunPlugin;`;
const PLUGIN_WRONG: Wrong[] = [
  [
    "a hook that does not exist",
    plugin(`"tool.execute.around": () => undefined`),
    /'"tool.execute.around"' does not exist in type 'RayrunPlugin'/,
  ],
  [
    "a chat param of the wrong type",
    plugin(`"chat.params": (params) => ({ ...params, temperature: "hot" })`),
    /Type 'string' is not assignable to type 'number'/,
  ],
  [
    "a refused provider option",
    plugin(`"chat.params": (params) => ({ ...params, options: { ...params.options, top_k: 5 } })`),
    /Type 'number' is not assignable to type 'undefined'/,
  ],
  [
    "an after payload field that does not exist",
    plugin(`"tool.execute.after": (input) => { rayrun.log.info(input.result.text); }`),
    /Property 'text' does not exist on type 'RayrunToolExecuteResult'/,
  ],
  [
    "before arguments that are not an object",
    plugin(`"tool.execute.before": (input) => ({ ...input, args: "x" })`),
    /Type 'string' is not assignable to type 'RayrunJsonObject'/,
  ],
  [
    "a ctx field spelled wrong",
    plugin(`"tool.execute.before": (input) => { rayrun.log.info(input.ctx.sessionID ?? ""); }`),
    /Property 'sessionID' does not exist/,
  ],
  [
    "tool parameters that are not an object schema",
    plugin(`tool: () => [{ id: "x", parameters: { type: "string" }, execute: () => ({ output: "" }) }]`),
    /'"string"' is not assignable to type '"object"'/,
  ],
  [
    "an execute output that is not a string",
    plugin(`tool: () => [{ id: "x", parameters: { type: "object" }, execute: () => ({ output: 3 }) }]`),
    /Type 'number' is not assignable to type 'string'/,
  ],
  [
    "an execute context field that does not exist",
    plugin(
      `tool: () => [{ id: "x", parameters: { type: "object" }, execute: (args, context) => ({ output: context.sessionId }) }]`,
    ),
    /Property 'sessionId' does not exist on type 'RayrunPluginToolContext'/,
  ],
  [
    "rayrun.model without a request",
    plugin(`"chat.params": async () => { await rayrun.model({ provider: "openai" }); }`),
    /Property 'request' is missing/,
  ],
];

describe.each([
  ["lib", LIB, LIB_WRONG],
  ["plugins", PLUGIN, PLUGIN_WRONG],
] as const)("wrong %s code fails with the error a user would see", (folder, declarations, cases) => {
  const files = Object.fromEntries(cases.map(([, source], i) => [`${folder}/wrong-${i}.ts`, source]));
  const diagnostics = typecheck(declarations, files);

  it.each(cases.map((wrong, i) => [...wrong, i] as const))("%s", (_what, _source, expected, i) => {
    expect(diagnostics[`${folder}/wrong-${i}.ts`]).toEqual([expect.stringMatching(expected)]);
  });
});

describe("the declared types are the runtime's own", () => {
  // Imports the types the runtime code uses and requires each declared type to
  // be the same: assignable both ways, as is and with every optional member made
  // required (so a renamed optional member counts too), and never `any` (which
  // would make the check pass).
  const SAME = `type Shape<T> = T extends readonly (infer E)[] ? Shape<E>[]
  : T extends object ? (string extends keyof T ? T : { [K in keyof T]-?: Shape<T[K]> }) : T;
type Both<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Same<A, B> = 0 extends 1 & (A | B) ? "any"
  : Both<A, B> extends true ? Both<Shape<A>, Shape<B>> : false;`;
  const CHECK = `import type { NeutralRequest } from "${REPO}shared/llm/request";
import type { PluginHook } from "${REPO}shared/files/exports";
import type { CHAT_PARAM_KEYS } from "${REPO}shared/plugins/chat-params";
import type { ProviderName } from "${REPO}shared/config/providers";
import type { ExecuteContext, beforePayload } from "${REPO}workers/gateway/plugins/execute-payloads";
import type { runPluginTool } from "${REPO}workers/gateway/plugins/tool-execute";
${SAME}
export const request: Same<RayrunRequest, NeutralRequest> = true;
export const hooks: Same<keyof RayrunPlugin, PluginHook> = true;
export const hookNames: Same<RayrunPluginHookName, PluginHook> = true;
export const chatParams: Same<keyof RayrunChatParams, (typeof CHAT_PARAM_KEYS)[number]> = true;
export const chatResult: Same<keyof RayrunChatParamsResult, (typeof CHAT_PARAM_KEYS)[number]> = true;
export const providers: Same<RayrunProviderName, ProviderName> = true;
export const ctx: Same<RayrunToolExecuteContext, ExecuteContext> = true;
export const beforeArgs: Same<RayrunToolExecuteBeforeInput["args"], Parameters<typeof beforePayload>[1]> = true;
export const toolContext: Same<RayrunPluginToolContext, Parameters<typeof runPluginTool>[3] & { toolID: string }> = true;
`;

  it("plugin payloads, hook names, chat params and providers", () => {
    const out = typecheck(PLUGIN, { "plugins/check.ts": CHECK }, { skipLibCheck: true });
    expect(out["plugins/check.ts"]).toEqual([]);
  });

  it("the neutral request of request hooks", () => {
    const source = [SAME, ...CHECK.split("\n").filter((line) => /NeutralRequest/.test(line))].join("\n");
    const out = typecheck(LIB, { "lib/check.ts": source }, { skipLibCheck: true });
    expect(out["lib/check.ts"]).toEqual([]);
  });

  it("the check fails on a type that differs, so passing means something", () => {
    const source = `import type { NeutralRequest } from "${REPO}shared/llm/request";
${SAME}
export const narrower: Same<RayrunRequest & { model: string }, NeutralRequest> = true;
export const renamed: Same<{ a: string; b?: number }, { a: string; c?: number }> = true;
export const untyped: Same<RayrunRequest, any> = true;
export const missing: Same<RayrunRequest, import("${REPO}no/such/module").X> = true;`;
    const out = typecheck(LIB, { "lib/check.ts": source }, { skipLibCheck: true });
    expect(out["lib/check.ts"]).toEqual([
      expect.stringMatching(/Type 'true' is not assignable to type 'false'/),
      expect.stringMatching(/Type 'true' is not assignable to type 'false'/),
      expect.stringMatching(/Type 'true' is not assignable to type '"any"'/),
      expect.stringMatching(/Cannot find module/),
    ]);
  });
});
