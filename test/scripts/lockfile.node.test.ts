// The committed package-lock.json must be exactly what `npm install` writes, or a new user's first
// install leaves the checkout modified. npm copies the root package's own fields into the lockfile's
// `packages[""]`, and marks it `hasInstallScript` when it has an install-time script: any of them
// drifting from package.json means the next install rewrites the file.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const read = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(root, name), "utf8")) as Record<string, unknown>;

const INSTALL_SCRIPTS = ["preinstall", "install", "postinstall"];

describe("package-lock.json", () => {
  it("holds the root package exactly as npm install writes it from package.json", () => {
    const pkg = read("package.json");
    const lock = read("package-lock.json");
    const packages = lock.packages as Record<string, Record<string, unknown>>;
    const rootEntry = packages[""];
    const scripts = (pkg.scripts ?? {}) as Record<string, string>;

    expect(lock.name).toBe(pkg.name);
    expect(lock.version).toBe(pkg.version);
    expect(rootEntry).toMatchObject({
      name: pkg.name,
      version: pkg.version,
      bin: pkg.bin,
      dependencies: pkg.dependencies,
      devDependencies: pkg.devDependencies,
    });
    const hasInstallScript = INSTALL_SCRIPTS.some((name) => scripts[name] !== undefined);
    expect(rootEntry?.hasInstallScript === true).toBe(hasInstallScript);
  });
});
