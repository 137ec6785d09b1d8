// The workspace files' declarations against the runtime values only workerd
// can load (the sandbox's modules): the namespace's name and capabilities,
// the plugin hooks, chat.params' keys and refusals, the providers. That they
// type-check, and match the runtime's TypeScript types, is file-types.node.test.ts.
import { loopPolicy } from "../../../../shared/config/loops";
import { describe, expect, it } from "vitest";
import { PROVIDERS } from "../../../../shared/config/providers";
import { PLUGIN_HOOKS } from "../../../../shared/files/exports";
import { hostCallsFor } from "../../../../shared/llm/host-calls";
import { ALIAS_NAMESPACE, NAMESPACE } from "../../../../shared/llm/hook-extensions";
import { CHAT_PARAM_KEYS, chatParamsProblem } from "../../../../shared/plugins/chat-params";
import { fileKindTypes, generateFileTypes } from "../../../../workers/api/contract/file-types";
import { PROVIDER_NAMES } from "../../../../workers/api/contract/file-types-common";
import { REFUSED_CHAT_OPTIONS } from "../../../../workers/api/contract/file-types-plugin";

const LIB = fileKindTypes("lib");
const PLUGIN = fileKindTypes("plugin");

/** The members declared in `type|interface <name> { … }` of `text`, in order. */
function membersOf(text: string, name: string): string[] {
  const start = text.search(new RegExp(`(?:type|interface) ${name}\\b[^{]*\\{\\n`));
  expect(start, name).toBeGreaterThanOrEqual(0);
  const body = text.slice(text.indexOf("{\n", start) + 2, text.indexOf("\n}", start));
  return [...body.matchAll(/^ {2}(?:readonly )?("[^"]+"|\w+)(?:<[^>]*>)?\??[:(]/gm)].map(([, key = ""]) =>
    key.startsWith('"') ? (JSON.parse(key) as string) : key,
  );
}

describe("generateFileTypes", () => {
  it("answers by the path's kind, and refuses a path that is not a workspace file's", () => {
    expect(generateFileTypes("lib/request-policy.ts")).toEqual({ ok: true, value: LIB });
    expect(generateFileTypes("lib/deep/helper.js")).toEqual({ ok: true, value: LIB });
    expect(generateFileTypes("plugins/redact.ts")).toEqual({ ok: true, value: PLUGIN });
    for (const bad of ["src/x.ts", "plugins/sub/x.ts", "lib/x.d.ts", "lib/x.py", ""]) {
      expect(generateFileTypes(bad), bad).toMatchObject({ ok: false, error: expect.any(String) });
    }
  });

  it("is a global script: no import or export, so a file needs no import", () => {
    for (const text of [LIB, PLUGIN]) expect(text).not.toMatch(/^\s*(import|export)\b/m);
  });

  it("declares each kind's own API and the common part in both", () => {
    for (const text of [LIB, PLUGIN]) {
      expect(text).toContain(`declare const ${NAMESPACE}: RayrunNamespace;`);
      expect(text).toContain("type RayrunRequest = {");
    }
    expect(LIB).toContain("type RayrunRequestHook =");
    expect(LIB).not.toContain("type RayrunPlugin =");
    expect(PLUGIN).toContain("type RayrunPlugin =");
    expect(PLUGIN).not.toContain("type RayrunRequestHook =");
  });
});

describe("the declarations follow the runtime", () => {
  it("the namespace: its capabilities are the host calls the bridge lends, plus log", () => {
    const lent = Object.keys(
      hostCallsFor({
        env: {} as never,
        workspaceUid: "ws",
        requestId: "r",
        config: {} as never,
        deadline: 0,
        policy: loopPolicy({}, "main"),
      }),
    );
    expect(membersOf(LIB, "RayrunNamespace")).toEqual([...lent, "log"]);
    expect(membersOf(LIB, "RayrunLog")).toEqual(["debug", "info", "warn", "error"]);
  });

  it("the alias namespace: adf.sys_lambda and adf.model_invoke, typed as the namespace's lambda and model", () => {
    for (const text of [LIB, PLUGIN]) {
      expect(text).toContain(`declare const ${ALIAS_NAMESPACE}: RayrunAliasNamespace;`);
      expect(membersOf(text, "RayrunAliasNamespace")).toEqual(["sys_lambda", "model_invoke"]);
      expect(text).toContain('readonly sys_lambda: RayrunNamespace["lambda"];');
      expect(text).toContain('readonly model_invoke: RayrunNamespace["model"];');
    }
  });

  it("a plugin's members are exactly the hooks the runtime dispatches, in PLUGIN_HOOKS order", () => {
    expect(membersOf(PLUGIN, "RayrunPlugin")).toEqual([...PLUGIN_HOOKS]);
    expect(PLUGIN).toContain(`type RayrunPluginHookName = ${PLUGIN_HOOKS.map((h) => `"${h}"`).join(" | ")};`);
  });

  it("chat.params: its keys in CHAT_PARAM_KEYS order, both received and returned", () => {
    expect(membersOf(PLUGIN, "RayrunChatParams")).toEqual([...CHAT_PARAM_KEYS]);
    expect(membersOf(PLUGIN, "RayrunChatParamsResult")).toEqual([...CHAT_PARAM_KEYS]);
  });

  it("chat.params: the options declared `never` are the ones the runtime refuses, and only those", () => {
    const declared = membersOf(PLUGIN, "RayrunChatOptions");
    expect(declared).toEqual(["reasoning", "thinkingBudget", ...REFUSED_CHAT_OPTIONS]);
    for (const key of REFUSED_CHAT_OPTIONS) {
      expect(chatParamsProblem({ options: { [key]: 1 } }), key).toEqual(expect.any(String));
    }
    for (const key of ["seed", "reasoning", "stop", "top_logprobs"]) {
      expect(chatParamsProblem({ options: { [key]: 1 } }), key).toBeNull();
    }
  });

  it("rayrun.model's providers are the configured providers", () => {
    expect(PROVIDER_NAMES).toEqual([...PROVIDERS]);
    expect(LIB).toContain(`type RayrunProviderName = ${PROVIDERS.map((p) => `"${p}"`).join(" | ")};`);
  });
});
