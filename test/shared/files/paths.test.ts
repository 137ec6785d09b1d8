// Workspace file paths: one spelling per file, only lib/ and plugins/, never normalised.
import { describe, expect, it } from "vitest";
import { FILE_PATH_MAX_CHARS, parseFilePath, pluginSibling } from "../../../shared/files/paths";

const valid = (path: string) => {
  const parsed = parseFilePath(path);
  if (!parsed.ok) throw new Error(`${path}: ${parsed.error}`);
  return parsed.value;
};
const refusal = (path: string) => {
  const parsed = parseFilePath(path);
  if (parsed.ok) throw new Error(`${path} was accepted`);
  return parsed.error;
};

describe("parseFilePath: what a path names", () => {
  it("lib files, at any depth, are kind lib named by their file name", () => {
    expect(valid("lib/transform.ts")).toEqual({
      path: "lib/transform.ts",
      kind: "lib",
      name: "transform",
      language: "ts",
    });
    expect(valid("lib/a/b-c/deep_1.js")).toEqual({
      path: "lib/a/b-c/deep_1.js",
      kind: "lib",
      name: "deep_1",
      language: "js",
    });
  });

  it("a plugin's name is its file name without the extension", () => {
    expect(valid("plugins/redact.ts")).toMatchObject({ kind: "plugin", name: "redact", language: "ts" });
    expect(valid("plugins/redact.js")).toMatchObject({ kind: "plugin", name: "redact", language: "js" });
  });

  it("only the last extension is the language; inner dots stay in the name", () => {
    expect(valid("lib/x.test.ts").name).toBe("x.test");
    expect(valid("plugins/a.b.js").name).toBe("a.b");
  });

  it("segments may start with a digit, '_' or '-'", () => {
    for (const path of ["lib/1.ts", "lib/_x/y.ts", "plugins/-x.ts"]) expect(valid(path).path).toBe(path);
  });
});

describe("parseFilePath: what is refused", () => {
  it("an empty path", () => {
    expect(refusal("")).toMatch(/empty/);
  });

  it("a path over the length limit; exactly the limit is accepted", () => {
    const at = `lib/${"a".repeat(FILE_PATH_MAX_CHARS - "lib/".length - ".ts".length)}.ts`;
    expect(at).toHaveLength(FILE_PATH_MAX_CHARS);
    expect(valid(at).kind).toBe("lib");
    const over = `lib/${"a".repeat(FILE_PATH_MAX_CHARS - "lib/".length - ".ts".length + 1)}.ts`;
    expect(refusal(over)).toContain(String(over.length));
  });

  it("empty segments: leading, trailing or double slashes (never normalised away)", () => {
    for (const path of ["/lib/x.ts", "lib//x.ts", "lib/x.ts/", "lib/"]) {
      expect(refusal(path), path).toMatch(/empty segment/);
    }
  });

  it("relative segments", () => {
    for (const path of ["lib/../x.ts", "lib/./x.ts", "plugins/../lib/x.ts"]) {
      expect(refusal(path), path).toMatch(/never relative/);
    }
  });

  it("hidden names and characters outside the URL-safe set", () => {
    for (const path of [
      "lib/.x.ts",
      "lib/.hidden/x.ts",
      "lib/a b.ts",
      "lib/é.ts",
      "lib/a:b.ts",
      "lib/a%20.ts",
    ]) {
      expect(refusal(path), path).toMatch(/letters, digits/);
    }
  });

  it("anything outside lib/ and plugins/, including the folders themselves", () => {
    for (const path of ["src/x.ts", "x.ts", "Lib/x.ts", "libs/x.ts", "lib", "plugins"]) {
      expect(refusal(path), path).toMatch(/not under lib\/ or plugins\//);
    }
  });

  it("plugins in subfolders", () => {
    expect(refusal("plugins/group/x.ts")).toMatch(/not in subfolders/);
  });

  it("other extensions, an upper-case extension, or none", () => {
    for (const path of ["lib/x.mjs", "lib/x.tsx", "lib/x.json", "lib/x.TS", "lib/x", "plugins/x.ts.bak"]) {
      expect(refusal(path), path).toMatch(/must end in \.ts or \.js/);
    }
  });

  it("declaration files", () => {
    expect(refusal("lib/types.d.ts")).toMatch(/declaration/);
    expect(refusal("plugins/x.d.js")).toMatch(/declaration/);
  });

  it("a refusal quotes a long path shortened, never the whole of it", () => {
    const long = `lib/${"a".repeat(100)} b.ts`;
    const message = refusal(long);
    expect(message).toContain("…");
    expect(message).not.toContain(long);
  });
});

describe("pluginSibling", () => {
  it("is the other spelling of the same plugin name", () => {
    const ts = valid("plugins/redact.ts");
    const sibling = pluginSibling(ts);
    expect(sibling).toBe("plugins/redact.js");
    const js = valid(sibling ?? "");
    expect(js.name).toBe(ts.name);
    expect(pluginSibling(js)).toBe(ts.path);
  });

  it("lib files have none", () => {
    expect(pluginSibling(valid("lib/redact.ts"))).toBeNull();
  });
});
