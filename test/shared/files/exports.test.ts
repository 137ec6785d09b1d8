// What a workspace file offers: a lib's named exports, a plugin's hooks.
import { describe, expect, it } from "vitest";
import { DEFAULT_LIB_EXPORT, exportPath, isPluginHook, PLUGIN_HOOKS } from "../../../shared/files/exports";

describe("plugin hooks", () => {
  it("are the four documented hooks, in the documented order", () => {
    expect(PLUGIN_HOOKS).toEqual(["tool", "chat.params", "tool.execute.before", "tool.execute.after"]);
  });

  it("isPluginHook accepts exactly those names", () => {
    for (const hook of PLUGIN_HOOKS) expect(isPluginHook(hook), hook).toBe(true);
    for (const name of [
      "",
      "Tool",
      "tool.execute",
      "chat",
      "chat.params ",
      "toString",
      "constructor",
      "main",
    ]) {
      expect(isPluginHook(name), name).toBe(false);
    }
  });
});

describe("exportPath", () => {
  it("a lib function is a named export", () => {
    expect(exportPath("lib", "transform")).toEqual(["transform"]);
    expect(exportPath("lib", DEFAULT_LIB_EXPORT)).toEqual([DEFAULT_LIB_EXPORT]);
  });

  it("a plugin hook is a member of the default export", () => {
    for (const hook of PLUGIN_HOOKS) expect(exportPath("plugin", hook)).toEqual(["default", hook]);
  });

  it("a lib reference without :name calls main", () => {
    expect(DEFAULT_LIB_EXPORT).toBe("main");
  });
});
